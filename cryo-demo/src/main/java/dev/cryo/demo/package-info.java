/** The demo application. */
package dev.cryo.demo;
