/* The checkpoint container (seam/checkpoint.h): the bytes on disk are the
 * documented little-endian layout, values come back bit for bit, and every
 * kind of damage or disagreement is refused with its reason. Also the QR
 * column history's save/load: a restored history computes the same bits. */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "seam/checkpoint.h"
#include "seam/lsq.h"

static char dir[256], path[512];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s/seam-ckpt-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, sizeof path, "%s/test.ckpt", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    return rmdir(dir);
}

static unsigned char *read_all(size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static unsigned char buf[1 << 16];
    *n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return buf;
}

static void write_all(const unsigned char *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    fclose(f);
}

static uint64_t le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void save(seam_ckpt_writer *w)
{
    char err[512];
    if (seam_ckpt_writer_save(w, path, err, sizeof err) != 0)
        fail_msg("%s", err);
}

/* One section with each kind of value: the file is byte for byte the layout
 * of the header's comment, whatever the machine's byte order. */
static void test_layout(void **state)
{
    (void)state;
    seam_ckpt_writer *w = seam_ckpt_writer_new();
    seam_ckpt_section(w, "ab");
    seam_ckpt_put_u64(w, 0x0102030405060708u);
    seam_ckpt_put_f64(w, 1.0);
    save(w);
    seam_ckpt_writer_destroy(&w);
    size_t n;
    unsigned char *b = read_all(&n);
    /* magic 8, version 4, length 8, name length 4, "ab", body length 8, 2 x (tag + 8), crc 4 */
    assert_int_equal(n, 8 + 4 + 8 + 4 + 2 + 8 + 18 + 4);
    assert_memory_equal(b, "SEAMCKPT", 8);
    assert_int_equal(le(b + 8, 4), SEAM_CKPT_VERSION);
    assert_int_equal(le(b + 12, 8), 4 + 2 + 8 + 18);
    assert_int_equal(le(b + 20, 4), 2);
    assert_memory_equal(b + 24, "ab", 2);
    assert_int_equal(le(b + 26, 8), 18);
    assert_int_equal(b[34], 'u');
    const unsigned char u[8] = {8, 7, 6, 5, 4, 3, 2, 1};   /* least significant byte first */
    assert_memory_equal(b + 35, u, 8);
    assert_int_equal(b[43], 'd');
    assert_int_equal(le(b + 44, 8), 0x3FF0000000000000u);   /* IEEE 754 binary64 of 1.0 */
    assert_int_equal(le(b + n - 4, 4), seam_crc32(0, b, n - 4));
    assert_int_equal(seam_crc32(0, "123456789", 9), 0xCBF43926u);   /* the CRC-32 check value */
}

/* Values come back bit for bit, sections in any order, optional ones absent. */
static void test_round_trip(void **state)
{
    (void)state;
    double v[4] = {-0.0, 1e-310, INFINITY, 0.1};
    int64_t iv[3] = {-1, INT64_MIN, INT64_MAX};
    seam_ckpt_writer *w = seam_ckpt_writer_new();
    seam_ckpt_section(w, "first");
    seam_ckpt_put_i64(w, -42);
    seam_ckpt_put_str(w, "hello");
    seam_ckpt_put_str(w, NULL);
    seam_ckpt_section(w, "second");
    seam_ckpt_put_f64s(w, v, 4);
    seam_ckpt_put_i64s(w, iv, 3);
    seam_ckpt_put_bytes(w, "\0\1\2", 3);
    save(w);
    seam_ckpt_writer_destroy(&w);

    char err[512];
    seam_ckpt_reader *r = seam_ckpt_reader_open(path, err, sizeof err);
    assert_non_null(r);
    assert_false(seam_ckpt_find(r, "third"));
    assert_true(seam_ckpt_ok(r, false));
    assert_true(seam_ckpt_find(r, "second"));
    assert_int_equal(seam_ckpt_peek_count(r), 4);
    double got[4];
    seam_ckpt_get_f64s(r, got, 4);
    assert_memory_equal(got, v, sizeof v);
    int64_t gi[3];
    seam_ckpt_get_i64s(r, gi, 3);
    assert_memory_equal(gi, iv, sizeof iv);
    size_t n;
    const void *bytes = seam_ckpt_get_bytes(r, &n);
    assert_int_equal(n, 3);
    assert_memory_equal(bytes, "\0\1\2", 3);
    assert_true(seam_ckpt_ok(r, true));
    assert_true(seam_ckpt_need(r, "first"));
    assert_int_equal(seam_ckpt_get_i64(r), -42);
    char *s = seam_ckpt_get_str(r), *e = seam_ckpt_get_str(r);
    assert_string_equal(s, "hello");
    assert_string_equal(e, "");
    free(s), free(e);
    assert_true(seam_ckpt_ok(r, true));
    seam_ckpt_reader_destroy(&r);
}

/* A reader that disagrees with the writer fails with a message, never with wrong values. */
static void test_disagreement(void **state)
{
    (void)state;
    double v[2] = {1, 2};
    seam_ckpt_writer *w = seam_ckpt_writer_new();
    seam_ckpt_section(w, "s");
    seam_ckpt_put_f64s(w, v, 2);
    seam_ckpt_put_u64(w, 7);
    save(w);
    seam_ckpt_writer_destroy(&w);
    char err[512];
    seam_ckpt_reader *r = seam_ckpt_reader_open(path, err, sizeof err);
    assert_true(seam_ckpt_need(r, "s"));
    double got[3];
    seam_ckpt_get_f64s(r, got, 3);
    assert_false(seam_ckpt_ok(r, false));
    assert_non_null(strstr(seam_ckpt_error(r), "section \"s\": expected 3 values, found 2"));
    seam_ckpt_reader_destroy(&r);

    r = seam_ckpt_reader_open(path, err, sizeof err);
    assert_true(seam_ckpt_need(r, "s"));
    assert_int_equal(seam_ckpt_get_i64(r), 0);
    assert_non_null(strstr(seam_ckpt_error(r), "expected an integer, found an array of numbers"));
    seam_ckpt_reader_destroy(&r);

    r = seam_ckpt_reader_open(path, err, sizeof err);
    assert_true(seam_ckpt_need(r, "s"));
    seam_ckpt_get_f64s(r, got, 2);
    assert_false(seam_ckpt_ok(r, true));   /* the u64 was not read */
    assert_non_null(strstr(seam_ckpt_error(r), "9 bytes left unread at its end"));
    seam_ckpt_reader_destroy(&r);

    r = seam_ckpt_reader_open(path, err, sizeof err);
    assert_false(seam_ckpt_need(r, "t"));
    assert_non_null(strstr(seam_ckpt_error(r), "no section \"t\""));
    seam_ckpt_reader_destroy(&r);
}

/* Another version, a torn file, a flipped bit, not a checkpoint at all. */
static void test_damage(void **state)
{
    (void)state;
    seam_ckpt_writer *w = seam_ckpt_writer_new();
    seam_ckpt_section(w, "s");
    seam_ckpt_put_f64(w, 3.5);
    save(w);
    seam_ckpt_writer_destroy(&w);
    size_t n;
    unsigned char good[256];
    const unsigned char *file = read_all(&n);
    memcpy(good, file, n);
    unsigned char b[256];
    char err[512];

    memcpy(b, good, n);
    b[8] = 2;
    write_all(b, n);
    assert_null(seam_ckpt_reader_open(path, err, sizeof err));
    assert_non_null(strstr(err, "checkpoint format version 2; this seam reads version 1 only"));

    write_all(good, n - 1);
    assert_null(seam_ckpt_reader_open(path, err, sizeof err));
    assert_non_null(strstr(err, "truncated"));

    memcpy(b, good, n);
    b[40] ^= 1;
    write_all(b, n);
    assert_null(seam_ckpt_reader_open(path, err, sizeof err));
    assert_non_null(strstr(err, "damaged (CRC mismatch)"));

    write_all((const unsigned char *)"{\"json\": true}\n", 15);
    assert_null(seam_ckpt_reader_open(path, err, sizeof err));
    assert_non_null(strstr(err, "not a seam checkpoint"));

    write_all(good, n);
    seam_ckpt_reader *r = seam_ckpt_reader_open(path, err, sizeof err);
    assert_non_null(r);
    seam_ckpt_reader_destroy(&r);
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    assert_int_not_equal(access(tmp, F_OK), 0);   /* renamed, not left behind */
}

/* A QR history saved after some pushes and filtered deletions, restored
 * into a fresh one: both go on to give identical solutions, bit for bit. */
/* An image in memory (a plugin's save and load) is the same bytes as the
 * file, reads back bit for bit, and is refused when cut or damaged. */
static void test_in_memory(void **state)
{
    (void)state;
    const double v[3] = {1.5, -0.0, 6.02214076e23};
    seam_ckpt_writer *w = seam_ckpt_writer_new();
    seam_ckpt_section(w, "state");
    seam_ckpt_put_f64s(w, v, 3);
    seam_ckpt_put_i64(w, -7);
    size_t n = 0;
    unsigned char *img = seam_ckpt_writer_take(w, &n);
    seam_ckpt_writer_destroy(&w);
    assert_non_null(img);

    w = seam_ckpt_writer_new();
    seam_ckpt_section(w, "state");
    seam_ckpt_put_f64s(w, v, 3);
    seam_ckpt_put_i64(w, -7);
    char err[512];
    assert_int_equal(seam_ckpt_writer_save(w, path, err, sizeof err), 0);
    seam_ckpt_writer_destroy(&w);
    size_t nf = 0;
    const unsigned char *file = read_all(&nf);
    assert_int_equal(nf, n);
    assert_memory_equal(file, img, n);

    seam_ckpt_reader *r = seam_ckpt_reader_from_bytes(img, n, "test state", err, sizeof err);
    assert_non_null(r);
    assert_true(seam_ckpt_need(r, "state"));
    double back[3];
    seam_ckpt_get_f64s(r, back, 3);
    assert_memory_equal(back, v, sizeof v);
    assert_int_equal(seam_ckpt_get_i64(r), -7);
    assert_true(seam_ckpt_ok(r, true));
    seam_ckpt_reader_destroy(&r);

    assert_null(seam_ckpt_reader_from_bytes(img, n - 1, "test state", err, sizeof err));
    assert_non_null(strstr(err, "test state: truncated"));
    img[n / 2] ^= 0x10;
    assert_null(seam_ckpt_reader_from_bytes(img, n, "test state", err, sizeof err));
    assert_non_null(strstr(err, "CRC mismatch"));
    free(img);
}

static void test_qr_restore(void **state)
{
    (void)state;
    enum { N = 7 };
    seam_qr *a = seam_qr_new(N, 5, 1e-3);
    double c[N], b[N], t[N];
    unsigned s = 12345;
    for (int k = 0; k < 9; k++) {
        for (int i = 0; i < N; i++) {
            s = s * 1103515245u + 12345u;
            c[i] = (double)(s >> 8) / 16777216.0 - 0.5;
            b[i] = sin(k + i);
            t[i] = cos(k * i);
        }
        seam_qr_push(a, c, b, k / 2, t);
    }
    seam_qr_keep(a, 1, 4);
    seam_ckpt_writer *w = seam_ckpt_writer_new();
    seam_ckpt_section(w, "qr");
    seam_qr_save(a, w);
    save(w);
    seam_ckpt_writer_destroy(&w);
    char err[512];
    seam_ckpt_reader *r = seam_ckpt_reader_open(path, err, sizeof err);
    seam_qr *bq = seam_qr_new(N, 5, 1e-3), *wrong = seam_qr_new(N, 4, 1e-3);
    assert_true(seam_ckpt_need(r, "qr"));
    seam_qr_load(bq, r);
    assert_true(seam_ckpt_ok(r, true));
    assert_true(seam_ckpt_need(r, "qr"));
    seam_qr_load(wrong, r);   /* another cap on the columns: refused */
    assert_non_null(strstr(seam_ckpt_error(r), "at most 5 columns"));
    seam_ckpt_reader_destroy(&r);
    seam_qr_destroy(&wrong);
    assert_int_equal(seam_qr_cols(bq), seam_qr_cols(a));
    assert_true(seam_qr_cols(a) > 1);
    for (int k = 9; k < 14; k++) {   /* the same further pushes into both */
        for (int i = 0; i < N; i++) {
            c[i] = sin(3.0 * k + i * i);
            b[i] = cos(k - i);
            t[i] = (double)i - k;
        }
        seam_qr_push(a, c, b, 5, t);
        seam_qr_push(bq, c, b, 5, t);
        double xa[N], xb[N];
        seam_qr_solve_tracked(a, xa);
        seam_qr_solve_tracked(bq, xb);
        assert_int_equal(seam_qr_cols(bq), seam_qr_cols(a));
        assert_memory_equal(xa, xb, seam_qr_cols(a) * sizeof *xa);
        seam_qr_solve(a, c, xa);
        seam_qr_solve(bq, c, xb);
        assert_memory_equal(xa, xb, seam_qr_cols(a) * sizeof *xa);
        assert_memory_equal(seam_qr_B(a), seam_qr_B(bq), seam_qr_cols(a) * N * sizeof(double));
    }
    seam_qr_destroy(&a);
    seam_qr_destroy(&bq);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_disagreement),
        cmocka_unit_test(test_damage),
        cmocka_unit_test(test_in_memory),
        cmocka_unit_test(test_qr_restore),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
