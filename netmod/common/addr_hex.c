/*
 * addr_hex.c — endpoint names as hex text (see addr_hex.h).
 */
#include <string.h>
#include "netmod/common/addr_hex.h"

void netc_hex_encode(const unsigned char *in, size_t n, char *out)
{
    static const char d[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = d[in[i] >> 4];
        out[2 * i + 1] = d[in[i] & 15];
    }
    out[2 * n] = '\0';
}

static int hex_val(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int netc_hex_decode(const char *in, unsigned char *out, size_t cap)
{
    size_t n = strlen(in);
    if (n % 2 || n / 2 > cap)
        return -1;
    for (size_t i = 0; i < n / 2; i++) {
        int h = hex_val(in[2 * i]), l = hex_val(in[2 * i + 1]);
        if (h < 0 || l < 0)
            return -1;
        out[i] = (unsigned char)(h << 4 | l);
    }
    return (int)(n / 2);
}
