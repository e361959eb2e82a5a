# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled helpers for the report: summary totals and the per-sentence rows.

Rows are engine tuples ``(line, length, status, matched, gold, test, crossing,
words, correct_tags)``.  Pure-Python equivalents: ``results._summarize_python``
and ``report.format_sentence``; the tests check that both give the same output.
"""


def summarize_rows(list rows, Py_ssize_t cutoff):
    """Totals of the rows for both blocks, as two 12-int tuples (see results.SummaryBlock)."""
    cdef long long acc[2][12]
    cdef Py_ssize_t k, b
    cdef tuple row
    cdef long long length, status, matched, gold, test, crossing, words, correct
    for b in range(2):
        for k in range(12):
            acc[b][k] = 0
    for row in rows:
        length = row[1]
        status = row[2]
        matched = row[3]
        gold = row[4]
        test = row[5]
        crossing = row[6]
        words = row[7]
        correct = row[8]
        for b in range(2):
            if b == 1 and length > cutoff:
                break
            acc[b][0] += 1
            if status == 1:
                acc[b][1] += 1
            elif status == 2:
                acc[b][2] += 1
            else:
                acc[b][3] += gold
                acc[b][4] += test
                acc[b][5] += matched
                if gold == test and test == matched:
                    acc[b][6] += 1
                acc[b][7] += words
                acc[b][8] += correct
                acc[b][9] += crossing
                if crossing == 0:
                    acc[b][10] += 1
                if crossing <= 2:
                    acc[b][11] += 1
    return tuple([acc[0][k] for k in range(12)]), tuple([acc[1][k] for k in range(12)])


cdef extern from "stdio.h":
    int snprintf(char* buf, size_t size, const char* fmt, ...)


cdef inline int put_int(char* out, long long value, int width) noexcept:
    """``%*lld`` of a non-negative ``value`` (right-aligned in ``width``); returns the bytes written."""
    cdef char digits[24]
    cdef int n = 0, k = 0
    while True:
        digits[n] = <char> (48 + value % 10)
        n += 1
        value //= 10
        if value == 0:
            break
    while k < width - n:
        out[k] = 32
        k += 1
    while n > 0:
        n -= 1
        out[k] = digits[n]
        k += 1
    return k


cdef inline int put_percent(char* out, long long num, long long den) noexcept:
    """``%6.2f`` of ``100.0 * num / den`` (``0.00`` when ``den`` is 0), as glibc prints the double.

    The value in hundredths is ``10000 num / den`` rounded to the nearest integer.  Where that
    quotient is not exactly half-way between two integers, the double ``100.0 * num / den`` (within
    a relative 2**-53 of it) rounds the same way, so integer arithmetic gives printf's digits; at an
    exact half (``num / den = 1/32``: 3.125) the rounding depends on the double's last bit, and
    printf itself formats it.  Counts outside ``0 <= num <= den`` also go to printf.
    """
    cdef long long scaled, hundredths, twice_rest
    if den == 0:
        num = 0
        den = 1
    if num < 0 or num > den or den > 1000000000:
        return snprintf(out, 32, b"%6.2f", 100.0 * num / den)
    scaled = 10000 * num
    hundredths = scaled // den
    twice_rest = 2 * (scaled - hundredths * den)
    if twice_rest == den:
        return snprintf(out, 32, b"%6.2f", 100.0 * num / den)
    if twice_rest > den:
        hundredths += 1
    cdef int k = put_int(out, hundredths // 100, 3)
    out[k] = 46
    out[k + 1] = <char> (48 + (hundredths % 100) // 10)
    out[k + 2] = <char> (48 + hundredths % 10)
    return k + 3


cdef inline int put_text(char* out, const char* text) noexcept:
    cdef int k = 0
    while text[k] != 0:
        out[k] = text[k]
        k += 1
    return k


cdef int format_row(char* out, long long line, long long length, long long status, long long matched,
                    long long gold, long long test, long long crossing, long long words,
                    long long correct) noexcept:
    """One row, ``%4d  %3d    %d  %6.2f %6.2f   %3d    %3d  %3d    %3d   %4d  %4d   %6.2f``;
    -1 when a count is negative (the caller then uses printf)."""
    if line < 0 or length < 0 or status < 0 or matched < 0 or gold < 0 or test < 0 or crossing < 0 \
            or words < 0 or correct < 0:
        return -1
    cdef int k = put_int(out, line, 4)
    k += put_text(out + k, b"  ")
    k += put_int(out + k, length, 3)
    k += put_text(out + k, b"    ")
    k += put_int(out + k, status, 1)
    k += put_text(out + k, b"  ")
    k += put_percent(out + k, matched, gold)
    out[k] = 32
    k += 1
    k += put_percent(out + k, matched, test)
    k += put_text(out + k, b"   ")
    k += put_int(out + k, matched, 3)
    k += put_text(out + k, b"    ")
    k += put_int(out + k, gold, 3)
    k += put_text(out + k, b"  ")
    k += put_int(out + k, test, 3)
    k += put_text(out + k, b"    ")
    k += put_int(out + k, crossing, 3)
    k += put_text(out + k, b"   ")
    k += put_int(out + k, words, 4)
    k += put_text(out + k, b"  ")
    k += put_int(out + k, correct, 4)
    k += put_text(out + k, b"   ")
    k += put_percent(out + k, correct, words)
    out[k] = 10
    return k + 1


def format_rows(list rows):
    """The per-sentence table rows, byte for byte as C's printf writes them (digits written here;
    printf itself for the rare values :func:`put_percent` leaves to it)."""
    cdef Py_ssize_t capacity = 128 * len(rows) + 512, used = 0
    cdef bytearray out = bytearray(capacity)
    cdef char* buf = out
    cdef int n
    cdef tuple row
    cdef long long line, length, status, matched, gold, test, crossing, words, correct
    for row in rows:
        line, length, status, matched, gold, test, crossing, words, correct = row
        if capacity - used < 512:
            capacity = 2 * capacity
            out[used:] = bytes(capacity - used)
            buf = out
        n = format_row(buf + used, line, length, status, matched, gold, test, crossing, words, correct)
        if n < 0:
            n = snprintf(buf + used, 512, b"%4lld  %3lld    %lld  %6.2f %6.2f   %3lld    %3lld  %3lld    %3lld   %4lld  %4lld   %6.2f\n",
                         line, length, status,
                         (0.0 if gold == 0 else 100.0 * matched / gold),
                         (0.0 if test == 0 else 100.0 * matched / test),
                         matched, gold, test, crossing, words, correct,
                         (0.0 if words == 0 else 100.0 * correct / words))
        used += n
    return buf[:used]
