// SPDX-License-Identifier: GPL-2.0
/*
 * crc32_bench.ko: which CRC32 the ICRC should be computed with, measured
 * on the machine that loads it (scripts/bench-crc32.sh runs it in the
 * guest). The ICRC is the IEEE 802.3 CRC32, so the kernel's choices are
 * lib/crc32's crc32_le() (what sroce calls) and the crypto API's "crc32"
 * (its best driver: crc32-pclmul on a CPU with PCLMULQDQ, else
 * crc32-generic, which is crc32_le() again). crc32c, which has an
 * instruction of its own on x86, is another polynomial and no choice.
 *
 * At load it times both over buffers of the sizes an ICRC covers (a short
 * ACK up to a 4096-byte packet), with bottom halves off as in the receive
 * softirq, checks that they agree, prints one line per size, and refuses
 * to stay loaded (-EAGAIN): nothing is left behind.
 */
#include <crypto/hash.h>
#include <linux/crc32.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>

#define CRC32_BENCH_BYTES	(1 << 20)	/* crunched per timing */
#define CRC32_BENCH_REPEAT	5		/* timings; the best counts */

static const unsigned int crc32_bench_sizes[] = { 64, 256, 1024, 4096 };

/* One call of each candidate over @len bytes, seeded with @crc. */
static u32 crc32_bench_lib(struct shash_desc *desc, u32 crc, const u8 *p,
			   unsigned int len)
{
	return crc32_le(crc, p, len);
}

static u32 crc32_bench_shash(struct shash_desc *desc, u32 crc, const u8 *p,
			     unsigned int len)
{
	/* The "crc32" shash keeps the running CRC as its context. */
	*(u32 *)shash_desc_ctx(desc) = crc;
	crypto_shash_update(desc, p, len);
	return *(u32 *)shash_desc_ctx(desc);
}

typedef u32 (*crc32_bench_fn)(struct shash_desc *, u32, const u8 *,
			      unsigned int);

/* Best time, in ns, of CRC32_BENCH_BYTES in calls of @len bytes. */
static u64 crc32_bench_time(crc32_bench_fn fn, struct shash_desc *desc,
			    const u8 *buf, unsigned int len, u32 *sum)
{
	unsigned int calls = CRC32_BENCH_BYTES / len, r, i;
	u64 best = U64_MAX, t;
	u32 crc = 0;

	for (r = 0; r < CRC32_BENCH_REPEAT; r++) {
		local_bh_disable();
		t = ktime_get_ns();
		for (i = 0; i < calls; i++)
			crc = fn(desc, crc, buf + (i & 7) * 64, len);
		/* crc32_le() is __pure: its result must be had, and here. */
		barrier_data(&crc);
		t = ktime_get_ns() - t;
		local_bh_enable();
		best = min(best, t);
		cond_resched();
	}
	*sum = crc;
	return best;
}

static int __init crc32_bench_init(void)
{
	struct crypto_shash *tfm;
	struct shash_desc *desc;
	unsigned int k;
	u8 *buf;
	int err = -ENOMEM;

	/* Room for the largest size at the last of 8 offsets (see above). */
	buf = kmalloc(4096 + 8 * 64, GFP_KERNEL);
	if (!buf)
		return err;
	get_random_bytes(buf, 4096 + 8 * 64);
	tfm = crypto_alloc_shash("crc32", 0, 0);
	if (IS_ERR(tfm)) {
		pr_err("crc32_bench: no crc32 shash: %ld\n", PTR_ERR(tfm));
		err = PTR_ERR(tfm);
		goto free_buf;
	}
	desc = kzalloc(sizeof(*desc) + crypto_shash_descsize(tfm), GFP_KERNEL);
	if (!desc)
		goto free_tfm;
	desc->tfm = tfm;
	crypto_shash_init(desc);

	pr_info("crc32_bench: shash driver %s\n",
		crypto_shash_driver_name(tfm));
	for (k = 0; k < ARRAY_SIZE(crc32_bench_sizes); k++) {
		unsigned int len = crc32_bench_sizes[k];
		u32 a, b;
		u64 ta = crc32_bench_time(crc32_bench_lib, desc, buf, len, &a);
		u64 tb = crc32_bench_time(crc32_bench_shash, desc, buf, len, &b);

		/* MB/s = bytes * 1000 / ns; both crunched the same bytes. */
		pr_info("crc32_bench: %u bytes: crc32_le %llu MB/s, shash %llu MB/s, shash/crc32_le %llu.%02llu%s\n",
			len, CRC32_BENCH_BYTES / len * len * 1000ULL / ta,
			CRC32_BENCH_BYTES / len * len * 1000ULL / tb,
			ta / tb, ta * 100 / tb % 100,
			a == b ? "" : " MISMATCH");
	}
	err = -EAGAIN;
	kfree(desc);
free_tfm:
	crypto_free_shash(tfm);
free_buf:
	kfree(buf);
	return err;
}
module_init(crc32_bench_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("crc32_le() against the crypto API's crc32, for the ICRC");
