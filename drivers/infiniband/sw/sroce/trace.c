// SPDX-License-Identifier: GPL-2.0
/*
 * The driver's tracepoints (trace.h), instantiated here once.
 */
#define CREATE_TRACE_POINTS
#include "trace.h"

/*
 * Out of line so that the packet paths need not pull in the tracepoint
 * machinery through drop.h; a disabled tracepoint costs a patched jump.
 */
void sroce_trace_drop(const struct ib_device *dev, u32 qpn,
		      const struct sk_buff *skb, enum sroce_drop_reason r)
{
	trace_sroce_drop(dev, qpn, skb, r);
}
