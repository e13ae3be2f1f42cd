/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Read responses and the repair of their gaps (read_gap.c): responses
 * that come ahead of a missing one are placed at once and counted once
 * the gap fills; only the missing run is asked for again.
 *
 * Send engine context, under snd.lock; reset under both engine locks.
 * Only read_gap.c writes struct sroce_read_gap.
 */
#ifndef SROCE_READ_GAP_H
#define SROCE_READ_GAP_H

#include <linux/bitmap.h>
#include <linux/skbuff.h>

#include <sroce/packet.h>

#include "send_window.h"

struct sroce_qp;

struct sroce_read_gap {
	/*
	 * Bit i stands for PSN base + i, a response whose data is already
	 * in its read's buffer but not counted in done_bytes; base follows
	 * the send window's acked_psn.
	 */
	DECLARE_BITMAP(ahead, SROCE_RD_AHEAD_BITS);
	u32 base;
	/*
	 * [psn, end) was asked for again and is awaited if pending;
	 * nahead of its responses came ahead of a gap; sent_end was the
	 * send window's sent_end when it was asked.
	 */
	bool pending;
	u32 psn;
	u32 end;
	u32 nahead;
	u32 sent_end;
};

void sroce_rgap_reset(struct sroce_qp *qp);
/* A read response: placed in order, or ahead of a gap. */
void sroce_rgap_response(struct sroce_qp *qp, struct sk_buff *skb,
			 const struct sroce_packet_info *info);
/* Counts the responses that came ahead once the gap before them filled. */
void sroce_rgap_advance(struct sroce_qp *qp);
/* Asks for a missing run again once it looks lost. */
void sroce_rgap_check(struct sroce_qp *qp);
/* A seek dropped the request for a run before it went out (@was_asking). */
void sroce_rgap_ask_dropped(struct sroce_qp *qp, bool was_asking);
/* The oldest WQE not done, if a read, and the next PSN it expects. */
struct sroce_send_state *sroce_rgap_oldest(struct sroce_qp *qp, u32 *hole);
/* Asks again for the read of @st from @hole (a probe). */
bool sroce_rgap_ask(struct sroce_qp *qp, const struct sroce_send_state *st,
		    u32 hole);
/* The window went back N to @st: the rest of its chunk is asked for. */
void sroce_rgap_went_back(struct sroce_qp *qp,
			  const struct sroce_send_state *st);

#endif /* SROCE_READ_GAP_H */
