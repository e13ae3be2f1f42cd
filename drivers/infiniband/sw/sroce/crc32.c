// SPDX-License-Identifier: GPL-2.0
/*
 * The CRC primitive the wire layer's ICRC is built on: the IEEE 802.3
 * CRC32, reflected, with no final inversion (the wire layer does that).
 *
 * The kernel has two. lib/crc32's crc32_le() works through tables (slice
 * by 8 in Debian's 6.1 and 6.12). The crypto API's "crc32" has, on x86,
 * crc32-pclmul: carry-less multiplication in SIMD registers, one
 * kernel_fpu_begin() per call. (crc32c, which x86 has an instruction for,
 * is another polynomial.) Which is faster depends on the machine: on
 * hardware the multiply is several times faster on a packet; under QEMU's
 * TCG, where our tests run, it is 2 to 3 times slower on 256 to 4096
 * bytes (make bench-crc32). So the module times both at load on a
 * packet-sized buffer and uses the shash for buffers of
 * SROCE_CRC32_LONG bytes and more only where it is faster and gives the
 * same CRCs; below that its per-call cost never pays.
 *
 * Parameter icrc_crc32 picks at load (auto, lib or shash); read
 * afterwards it says which one is in use.
 */
#include <crypto/hash.h>
#include <linux/crc32.h>
#include <linux/jump_label.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>

#include <sroce/icrc.h>

#include "sroce.h"

#define SROCE_CRC32_LONG	256
/* What a choice at load is timed on: one packet of the common path MTU. */
#define SROCE_CRC32_PROBE	1024

/* "shash:" and a crypto driver name, at most */
static char sroce_icrc_crc32[sizeof("shash:") + CRYPTO_MAX_ALG_NAME] = "auto";
module_param_string(icrc_crc32, sroce_icrc_crc32, sizeof(sroce_icrc_crc32),
		    0444);
MODULE_PARM_DESC(icrc_crc32,
		 "CRC32 of the ICRC for buffers of 256 bytes and more, at load: auto (the faster), lib (crc32_le) or shash (the crypto API's crc32); afterwards the one in use");

/* Set at load, before any device exists; freed at unload, after the last. */
static struct crypto_shash *sroce_crc32_tfm;
static DEFINE_STATIC_KEY_FALSE(sroce_crc32_long_shash);

/* The crypto API's crc32 keeps the running CRC as its descriptor's context. */
static u32 sroce_crc32_shash(u32 crc, const void *p, size_t len)
{
	union {
		struct shash_desc desc;
		u8 room[sizeof(struct shash_desc) + sizeof(u32)];
	} d;
	u32 *ctx = shash_desc_ctx(&d.desc);

	d.desc.tfm = sroce_crc32_tfm;
	*ctx = crc;
	crypto_shash_update(&d.desc, p, len);
	return *ctx;
}

u32 sroce_crc32_le(u32 crc, const void *p, size_t len)
{
	if (static_branch_unlikely(&sroce_crc32_long_shash) &&
	    len >= SROCE_CRC32_LONG)
		return sroce_crc32_shash(crc, p, len);
	return crc32_le(crc, p, len);
}

static u32 sroce_crc32_lib(u32 crc, const void *p, size_t len)
{
	return crc32_le(crc, p, len);
}

/* Nanoseconds of 32 calls of @fn over @len bytes: the best of 3 tries. */
static u64 sroce_crc32_time(u32 (*fn)(u32, const void *, size_t),
			    const u8 *buf, size_t len)
{
	u64 best = U64_MAX, t;
	u32 crc = 0;
	int r, i;

	for (r = 0; r < 3; r++) {
		local_bh_disable();	/* as in the receive softirq */
		t = ktime_get_ns();
		for (i = 0; i < 32; i++)
			crc = fn(crc, buf, len);
		/* crc32_le() is __pure: its result must be had, and here. */
		barrier_data(&crc);
		t = ktime_get_ns() - t;
		local_bh_enable();
		best = min(best, t);
	}
	return best;
}

/* Whether the shash computes what crc32_le() does, unaligned too. */
static bool sroce_crc32_shash_agrees(const u8 *buf)
{
	return sroce_crc32_shash(~0u, buf, SROCE_CRC32_PROBE) ==
	       crc32_le(~0u, buf, SROCE_CRC32_PROBE) &&
	       sroce_crc32_shash(0x1234, buf + 3, SROCE_CRC32_PROBE - 5) ==
	       crc32_le(0x1234, buf + 3, SROCE_CRC32_PROBE - 5);
}

/*
 * Sets up the crypto API's crc32 and times it against crc32_le() into
 * @t_shash and @t_lib. Returns NULL, or why it cannot be used.
 */
static const char *sroce_crc32_try_shash(u64 *t_lib, u64 *t_shash)
{
	const char *why = NULL;
	u8 *buf;

	sroce_crc32_tfm = crypto_alloc_shash("crc32", 0, 0);
	if (IS_ERR(sroce_crc32_tfm)) {
		sroce_crc32_tfm = NULL;
		return "the kernel has none";
	}
	if (crypto_shash_descsize(sroce_crc32_tfm) != sizeof(u32))
		return "its context is not the CRC";
	buf = kmalloc(SROCE_CRC32_PROBE, GFP_KERNEL);
	if (!buf)
		return "no memory to try it";
	get_random_bytes(buf, SROCE_CRC32_PROBE);
	if (sroce_crc32_shash_agrees(buf)) {
		*t_lib = sroce_crc32_time(sroce_crc32_lib, buf,
					  SROCE_CRC32_PROBE);
		*t_shash = sroce_crc32_time(sroce_crc32_shash, buf,
					    SROCE_CRC32_PROBE);
	} else {
		why = "it disagrees with crc32_le";
	}
	kfree(buf);
	return why;
}

int sroce_crc32_init(void)
{
	bool forced = sysfs_streq(sroce_icrc_crc32, "shash");
	u64 t_lib = 0, t_shash = 0;
	const char *why;

	if (sysfs_streq(sroce_icrc_crc32, "lib"))
		goto lib;
	if (!forced && !sysfs_streq(sroce_icrc_crc32, "auto")) {
		pr_err("sroce: icrc_crc32=%s: auto, lib or shash\n",
		       sroce_icrc_crc32);
		return -EINVAL;
	}
	why = sroce_crc32_try_shash(&t_lib, &t_shash);
	if (!why && !forced && t_shash >= t_lib)
		why = "it is slower";
	if (t_lib)
		pr_info("sroce: CRC32 of %u bytes: crc32_le %llu ns, crypto API's crc32 (%s) %llu ns\n",
			SROCE_CRC32_PROBE, t_lib / 32,
			crypto_shash_driver_name(sroce_crc32_tfm), t_shash / 32);
	if (why) {
		if (forced) {
			pr_err("sroce: icrc_crc32=shash: %s\n", why);
			sroce_crc32_exit();
			return -EOPNOTSUPP;
		}
		pr_info("sroce: ICRC with crc32_le: not the crypto API's crc32, %s\n",
			why);
		sroce_crc32_exit();
		goto lib;
	}
	static_branch_enable(&sroce_crc32_long_shash);
	snprintf(sroce_icrc_crc32, sizeof(sroce_icrc_crc32), "shash:%s",
		 crypto_shash_driver_name(sroce_crc32_tfm));
	pr_info("sroce: ICRC with the crypto API's crc32 (%s) from %u bytes\n",
		crypto_shash_driver_name(sroce_crc32_tfm), SROCE_CRC32_LONG);
	return 0;
lib:
	strscpy(sroce_icrc_crc32, "lib", sizeof(sroce_icrc_crc32));
	return 0;
}

/* At unload, after the last device; or when the shash is not kept. */
void sroce_crc32_exit(void)
{
	static_branch_disable(&sroce_crc32_long_shash);
	if (sroce_crc32_tfm)
		crypto_free_shash(sroce_crc32_tfm);
	sroce_crc32_tfm = NULL;
}
