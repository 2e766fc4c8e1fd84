// SPDX-License-Identifier: GPL-2.0
/*
 * Module load and unload: the kernel's module notifier tells the blob store
 * when a module comes (its blob goes live, its probes come back) and when it
 * goes (they leave), ink_target_module().
 */
#include <linux/module.h>
#include <linux/notifier.h>

#include "blob_store.h"
#include "module_notify.h"

static int module_notify(struct notifier_block *nb, unsigned long state, void *data)
{
	if (state == MODULE_STATE_COMING || state == MODULE_STATE_GOING)
		ink_target_module(data, state == MODULE_STATE_COMING);
	return NOTIFY_DONE;
}

static struct notifier_block module_nb = {
	.notifier_call = module_notify,
	.priority = -1,		/* after the kernel's BTF notifier */
};

int ink_module_notify_init(void)
{
	return register_module_notifier(&module_nb);
}

void ink_module_notify_exit(void)
{
	unregister_module_notifier(&module_nb);
}
