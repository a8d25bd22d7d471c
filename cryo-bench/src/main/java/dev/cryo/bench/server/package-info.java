/**
 * The worker's speed: a user handed over between two workers through the freezer (beside Tomcat's
 * {@code FileStore} swapping the equivalent session), calls through the worker against the same
 * work done directly on the registry, and a burst of calls on a frozen user.
 */
package dev.cryo.bench.server;
