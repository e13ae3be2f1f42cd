// SPDX-License-Identifier: GPL-2.0
/*
 * debug_canary.ko what=KIND[,KIND...]: provoke, in the module's init, one
 * instance of each kernel report KIND that `make check-debug` relies on,
 * so that scripts/check-debug.sh can show, on every run, that the debug
 * kernel makes the report and that scripts/guest/check-kmsg.sh (or, for
 * leaks, scripts/guest/debug-checks.sh) sees it. Never load it anywhere
 * else. Each provocation is the mistake itself, done once and harmlessly
 * (nothing is corrupted, nothing deadlocks):
 *
 *   kasan         a read of a kmalloc'ed object after kfree
 *   ubsan         a 32-bit shift by 40
 *   sleep         mutex_lock() (uncontended) under a spinlock (with
 *                 lockdep still on, also "[ BUG: Invalid wait context ]")
 *   leak          kmalloc'ed objects whose pointers are dropped
 *   circular      mutexes A then B, later B then A (one thread)
 *   recursive     two spinlocks of one lock class nested
 *   inconsistent  a spinlock taken with softirqs on, then in a timer
 *   rcu           rcu_dereference() outside rcu_read_lock()
 *
 * A lockdep report switches lockdep off for the rest of the boot, so each
 * of the last four needs a boot of its own, or must come after the others
 * that need lockdep; so do sleep (lockdep reports the invalid wait context
 * too) and kasan (the report taints the kernel LOCKDEP_NOW_UNRELIABLE),
 * and KASAN reports only its first finding: kasan comes last.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/delay.h>

static char *what = "";
module_param(what, charp, 0444);
MODULE_PARM_DESC(what, "comma-separated reports to provoke");

static noinline void canary_kasan(void)
{
	char *p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return;
	kfree(p);
	OPTIMIZER_HIDE_VAR(p);
	pr_info("debug_canary: read after free: %d\n", READ_ONCE(p[8]));
}

static noinline void canary_ubsan(void)
{
	volatile unsigned int shift = 40;
	volatile u32 one = 1;

	pr_info("debug_canary: 1 << 40 = %u\n", one << shift);
}

static DEFINE_SPINLOCK(canary_spin);
static DEFINE_MUTEX(canary_mutex);

static noinline void canary_sleep(void)
{
	spin_lock(&canary_spin);
	mutex_lock(&canary_mutex);
	mutex_unlock(&canary_mutex);
	spin_unlock(&canary_spin);
}

static noinline void canary_leak(void)
{
	int i;

	for (i = 0; i < 4; i++) {
		void *p = kmalloc(256, GFP_KERNEL);

		if (p)
			memset(p, 0xa5, 256);
		OPTIMIZER_HIDE_VAR(p);
	}
}

static DEFINE_MUTEX(canary_a);
static DEFINE_MUTEX(canary_b);

static noinline void canary_circular(void)
{
	mutex_lock(&canary_a);
	mutex_lock(&canary_b);
	mutex_unlock(&canary_b);
	mutex_unlock(&canary_a);

	mutex_lock(&canary_b);
	mutex_lock(&canary_a);
	mutex_unlock(&canary_a);
	mutex_unlock(&canary_b);
}

static spinlock_t canary_pair[2];

static noinline void canary_recursive(void)
{
	int i;

	for (i = 0; i < 2; i++)
		spin_lock_init(&canary_pair[i]);	/* one class for both */
	spin_lock(&canary_pair[0]);
	spin_lock(&canary_pair[1]);
	spin_unlock(&canary_pair[1]);
	spin_unlock(&canary_pair[0]);
}

static DEFINE_SPINLOCK(canary_bh);
static struct timer_list canary_timer;

static void canary_timer_fn(struct timer_list *t)
{
	spin_lock(&canary_bh);
	spin_unlock(&canary_bh);
}

static noinline void canary_inconsistent(void)
{
	spin_lock(&canary_bh);			/* softirqs on: SOFTIRQ-ON-W */
	spin_unlock(&canary_bh);
	timer_setup(&canary_timer, canary_timer_fn, 0);
	mod_timer(&canary_timer, jiffies + 1);	/* IN-SOFTIRQ-W */
	msleep(100);
	del_timer_sync(&canary_timer);
}

struct canary_obj {
	int v;
};
static struct canary_obj canary_static = { .v = 1 };
static struct canary_obj __rcu *canary_ptr;

static noinline void canary_rcu(void)
{
	struct canary_obj *o;

	rcu_assign_pointer(canary_ptr, &canary_static);
	o = rcu_dereference(canary_ptr);	/* no rcu_read_lock() */
	pr_info("debug_canary: rcu object %d\n", o->v);
}

static const struct {
	const char *name;
	void (*fn)(void);
} canaries[] = {
	{ "kasan", canary_kasan },
	{ "ubsan", canary_ubsan },
	{ "sleep", canary_sleep },
	{ "leak", canary_leak },
	{ "circular", canary_circular },
	{ "recursive", canary_recursive },
	{ "inconsistent", canary_inconsistent },
	{ "rcu", canary_rcu },
};

static int __init canary_init(void)
{
	char *list, *s, *w;
	int i;

	list = kstrdup(what, GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	s = list;
	while ((w = strsep(&s, ",")) != NULL) {
		if (!*w)
			continue;
		for (i = 0; i < ARRAY_SIZE(canaries); i++)
			if (!strcmp(w, canaries[i].name))
				break;
		if (i == ARRAY_SIZE(canaries)) {
			pr_err("debug_canary: unknown report '%s'\n", w);
			kfree(list);
			return -EINVAL;
		}
		pr_info("debug_canary: provoking %s\n", w);
		canaries[i].fn();
	}
	kfree(list);
	return 0;
}

static void __exit canary_exit(void)
{
}

module_init(canary_init);
module_exit(canary_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("make check-debug: provokes the reports the harness must see");
