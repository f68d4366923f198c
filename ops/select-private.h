/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers that ops/select.c shares with the other ops built on a
 * selection (slice.c). Internal to the ops library: not part of its API. */
#ifndef __SELECT_PRIVATE_H__
#define __SELECT_PRIVATE_H__

/* *error = a malloc'd printf of @fmt; nothing when @error is NULL (NULL in
 * it when out of memory). */
void stage_ops_set_error (char **error, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format (printf, 2, 3)))
#endif
    ;

/* 1 when @text is NULL or only white space (the C locale's, like the
 * parsers' separators), else 0. */
int stage_ops_text_is_blank (const char *text);

#endif /* __SELECT_PRIVATE_H__ */
