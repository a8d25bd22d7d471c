/**
 * An example application beside the demo, built as a user builds one
 * ({@link dev.cryo.examples.shop.ShopApplication}): a multi-tab shop.
 *
 * <h2>Rules of the package</h2>
 *
 * <ul>
 *   <li>It depends on cryo-app alone, in {@code provided} scope, like any application: its jar
 *       holds its classes and its page, nothing of cryo's.
 *   <li>It keeps all its state in cryo state (the cart per user, recently viewed per page), so it
 *       survives every freeze and move; its tests run it with and without a freeze between every
 *       call, and once in a real browser against a real {@code cryo serve} of its jar.
 * </ul>
 */
package dev.cryo.examples.shop;
