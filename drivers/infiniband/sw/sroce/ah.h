/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Address handles.
 *
 * A kernel UD work request names its AH by pointer (ud_wr(wr)->ah); its
 * owner keeps the AH alive until the request is done, so the transmit path
 * reads sroce_ah_av() directly. A user UD WQE names its AH by number
 * (wr.ud.ah_num, written by librxe), which the kernel must resolve without
 * trusting the user: that is what the number table is for.
 *
 * Numbers: only user AHs created through a provider that receives struct
 * rxe_create_ah_resp (outlen >= 8) get one, from the device's ah_xa,
 * allocated cyclically in 1..SROCE_AH_NUM_MAX so that a stale number in a
 * WQE finds nothing rather than an AH created just after. Every other AH
 * has ah_num 0, which no lookup finds: kernel AHs are never named by
 * number, and an older provider embeds the full AV in each WQE instead.
 *
 * Lifetime: the RDMA core allocates struct sroce_ah and kfree()s it right
 * after destroy_ah returns, and destroy_ah may be called where it must not
 * sleep, so it can neither wait for a grace period nor for a reference to
 * drop. The number table therefore does not point at struct sroce_ah but
 * at a separately allocated, immutable copy of what the data path needs
 * (the AV and the owning PD), freed with kfree_rcu() after the number is
 * erased. sroce_ah_lookup_av() copies that AV out under rcu_read_lock(),
 * so no reader ever touches the entry after its RCU read section.
 *
 * Locking: ah_xa's own lock, taken only by create and destroy of numbered
 * AHs; both run in process context (uverbs), so no irq-safe variant is
 * needed. Lookups take no lock. num_ah counts every AH of the device, in
 * any context, against SROCE_MAX_AH.
 */
#ifndef SROCE_AH_H
#define SROCE_AH_H

#include <rdma/ib_verbs.h>

#include "av.h"

#define SROCE_AH_NUM_MAX	0xffffff

struct sroce_dev;

struct sroce_ah {
	struct ib_ah ib_ah;
	/* Filled at creation, never changed: readable without a lock. */
	struct sroce_av av;
	/* 0: not in the number table. */
	u32 ah_num;
};

static inline struct sroce_ah *to_sroce_ah(struct ib_ah *ib_ah)
{
	return container_of(ib_ah, struct sroce_ah, ib_ah);
}

/* The AV of an AH its caller holds (kernel work requests). */
static inline const struct sroce_av *sroce_ah_av(struct ib_ah *ib_ah)
{
	return &to_sroce_ah(ib_ah)->av;
}

/*
 * Copies the AV of user AH number @ah_num into @out if that AH exists and
 * belongs to @pd (compared, never dereferenced). Returns 0, or -EINVAL for
 * an unknown number or another PD's AH. Any context.
 */
int sroce_ah_lookup_av(struct sroce_dev *sdev, u32 ah_num,
		       const struct ib_pd *pd, struct sroce_av *out);

#endif /* SROCE_AH_H */
