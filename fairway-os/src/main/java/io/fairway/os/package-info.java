/**
 * What Fairway asks of Linux beyond the JDK and Netty: its one libc binding ({@link
 * io.fairway.os.LibC}) and errno's names ({@link io.fairway.os.Errno}). One binding, not one per
 * caller, so a call is declared once with its error convention (throwing, or {@link
 * io.fairway.os.LibC.Quiet} on steady paths) and every module loads libc the same way.
 */
@NullMarked
package io.fairway.os;

import org.jspecify.annotations.NullMarked;
