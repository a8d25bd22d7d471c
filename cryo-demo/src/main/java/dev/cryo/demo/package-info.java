/**
 * The demo application {@code cryo serve} runs by default ({@link dev.cryo.demo.DemoApplication}).
 *
 * <h2>Rules of the package</h2>
 *
 * <ul>
 *   <li>It depends on cryo-app alone, like any application.
 *   <li>Its JSON API is a contract scripts use: {@code docs/demo.md} documents every route, its
 *       request, its reply and its errors, and the tests hold it to that.
 *   <li>It keeps all its state in cryo state, so it survives every freeze and move; its tests run
 *       it with a freeze between every call.
 * </ul>
 */
package dev.cryo.demo;
