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


def format_rows(list rows):
    """The per-sentence table rows, printed with C's own printf."""
    cdef bytearray out = bytearray()
    cdef char buf[512]
    cdef int n
    cdef tuple row
    cdef long line, length, status, matched, gold, test, crossing, words, correct
    for row in rows:
        line, length, status, matched, gold, test, crossing, words, correct = row
        n = snprintf(buf, sizeof(buf), b"%4ld  %3ld    %ld  %6.2f %6.2f   %3ld    %3ld  %3ld    %3ld   %4ld  %4ld   %6.2f\n",
                     line, length, status,
                     (0.0 if gold == 0 else 100.0 * matched / gold),
                     (0.0 if test == 0 else 100.0 * matched / test),
                     matched, gold, test, crossing, words, correct,
                     (0.0 if words == 0 else 100.0 * correct / words))
        out += buf[:n]
    return bytes(out)
