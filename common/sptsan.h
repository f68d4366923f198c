/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ThreadSanitizer annotations for synchronisation it cannot see: GLib's
 * own internal locks (a GAsyncQueue hand-off) are futexes inside GLib,
 * which `scripts/test.sh --sanitize=thread` does not instrument. Nothing
 * without TSan. */
#ifndef __SP_TSAN_H__
#define __SP_TSAN_H__

#if defined(__SANITIZE_THREAD__)
#define SP_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SP_TSAN 1
#endif
#endif

#ifdef SP_TSAN
void __tsan_acquire (void *addr);
void __tsan_release (void *addr);
/* Everything this thread did before SP_TSAN_RELEASE (addr) happens before
 * what another thread does after its SP_TSAN_ACQUIRE (addr). */
#define SP_TSAN_RELEASE(addr) __tsan_release ((void *) (addr))
#define SP_TSAN_ACQUIRE(addr) __tsan_acquire ((void *) (addr))
#else
#define SP_TSAN_RELEASE(addr) do { } while (0)
#define SP_TSAN_ACQUIRE(addr) do { } while (0)
#endif

#endif /* __SP_TSAN_H__ */
