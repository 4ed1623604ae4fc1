/*
 * addr_hex.h — endpoint names as text: they travel through PMI (direct
 * mode) and the agent's segment (offload mode) as lowercase hex.
 */
#ifndef NETMOD_COMMON_ADDR_HEX_H
#define NETMOD_COMMON_ADDR_HEX_H

#include <stddef.h>

/* Writes the n bytes of `in` as 2n hex digits and a NUL into out (2n+1). */
void netc_hex_encode(const unsigned char *in, size_t n, char *out);

/* Reads the hex string `in` into out (at most cap bytes): the number of
 * bytes, or -1 when `in` is not an even run of hex digits or too long. */
int netc_hex_decode(const char *in, unsigned char *out, size_t cap);

#endif
