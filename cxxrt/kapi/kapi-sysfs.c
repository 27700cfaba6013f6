// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * C boundary: sysfs. Device classes, devices, C++-embedded kobjects,
 * attribute groups built from C++ tables, symlinks, self-removing files.
 *
 * The attribute glue: each attribute is a device_attribute or kobj_attribute
 * wrapped with the C++ table (`spec`) and its index. One generic show/store
 * pair per flavour recovers the C++ object (drvdata for a device, the owner
 * of a C++ kobject) and forwards to cxxrt_cxx_sysfs_show/_store. No logic.
 */
#include <linux/device.h>
#include <linux/kdev_t.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/version.h>
#include <cxxrt/kapi-sysfs.h>

struct kapi_sysfs_attr {
	union {
		struct device_attribute dev;
		struct kobj_attribute kobj;
	};
	const void *spec;
	unsigned int index;
};

struct kapi_sysfs_group {
	struct attribute_group group;
	const struct attribute_group *groups[2];	/* for device_create_with_groups */
	struct attribute **attrs;			/* count + 1, NULL-terminated */
	struct kapi_sysfs_attr *items;
	unsigned int count;
	int kobj_flavour;
};

/* What a store upcall may pass back to kapi_sysfs_remove_self(). */
struct kapi_sysfs_self {
	struct device *dev;			/* device flavour */
	struct device_attribute *dev_attr;
	struct kobject *kobj;			/* kobject flavour */
	struct kobj_attribute *kobj_attr;
};

static ssize_t kapi_dev_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct kapi_sysfs_attr *a = container_of(attr, struct kapi_sysfs_attr, dev);

	return cxxrt_cxx_sysfs_show(dev_get_drvdata(dev), a->spec, a->index, buf);
}

static ssize_t kapi_dev_store(struct device *dev, struct device_attribute *attr, const char *buf, size_t count)
{
	struct kapi_sysfs_attr *a = container_of(attr, struct kapi_sysfs_attr, dev);
	struct kapi_sysfs_self self = { .dev = dev, .dev_attr = attr };

	return cxxrt_cxx_sysfs_store(dev_get_drvdata(dev), a->spec, a->index, buf, count, &self);
}

static ssize_t kapi_kobj_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct kapi_sysfs_attr *a = container_of(attr, struct kapi_sysfs_attr, kobj);

	return cxxrt_cxx_sysfs_show(cxxrt_cxx_kobject_owner(kobj), a->spec, a->index, buf);
}

static ssize_t kapi_kobj_store(struct kobject *kobj, struct kobj_attribute *attr, const char *buf, size_t count)
{
	struct kapi_sysfs_attr *a = container_of(attr, struct kapi_sysfs_attr, kobj);
	struct kapi_sysfs_self self = { .kobj = kobj, .kobj_attr = attr };

	return cxxrt_cxx_sysfs_store(cxxrt_cxx_kobject_owner(kobj), a->spec, a->index, buf, count, &self);
}

static void kapi_kobj_release(struct kobject *kobj)
{
	cxxrt_cxx_kobject_release(kobj);
}

static const struct kobj_type kapi_kobj_ktype = {
	.release = kapi_kobj_release,
	.sysfs_ops = &kobj_sysfs_ops,
};

/*
 * KAPI: process context. The class belongs to the calling module; since
 * 6.4 class_create() takes no owner (a class no longer pins its module).
 */
int kapi_class_create(const char *name, void **out)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
	struct class *cls = class_create(name);
#else
	struct class *cls = class_create(THIS_MODULE, name);
#endif

	if (IS_ERR(cls))
		return PTR_ERR(cls);
	*out = cls;
	return 0;
}

/* KAPI: process context; every device of the class is gone. */
void kapi_class_destroy(void *cls)
{
	class_destroy(cls);
}

/* KAPI: process context. drvdata must outlive kapi_device_unregister(). */
int kapi_device_create(void *cls, void *parent, void *drvdata, void *group, const char *name, void **out)
{
	struct kapi_sysfs_group *g = group;
	struct device *dev = device_create_with_groups(cls, parent, MKDEV(0, 0), drvdata, g ? g->groups : NULL,
						       "%s", name);

	if (IS_ERR(dev))
		return PTR_ERR(dev);
	*out = dev;
	return 0;
}

/* KAPI: process context, sleeps until running show/store calls return. */
void kapi_device_unregister(void *dev)
{
	device_unregister(dev);
}

void *kapi_device_kobj(void *dev)
{
	return &((struct device *)dev)->kobj;
}

void *kapi_kernel_kobj(void)
{
	return kernel_kobj;
}

/* KAPI: process context; kobj is zeroed storage. On failure, still put it. */
int kapi_kobject_init_and_add(void *kobj, void *parent, const char *name)
{
	return kobject_init_and_add(kobj, &kapi_kobj_ktype, parent, "%s", name);
}

int kapi_kobject_uevent_add(void *kobj)
{
	return kobject_uevent(kobj, KOBJ_ADD);
}

/* KAPI: process context; no show/store runs after it returns. */
void kapi_kobject_del(void *kobj)
{
	kobject_del(kobj);
}

/* KAPI: any context. */
void kapi_kobject_get(void *kobj)
{
	kobject_get(kobj);
}

/* KAPI: the release upcall runs here if this was the last reference. */
void kapi_kobject_put(void *kobj)
{
	kobject_put(kobj);
}

const char *kapi_kobject_name(void *kobj)
{
	return kobject_name(kobj);
}

/* KAPI: process context. One allocation: the group, its items, the NULL-terminated pointer array. */
void *kapi_sysfs_group_alloc(const char *name, unsigned int count, int kobj_flavour)
{
	struct kapi_sysfs_group *g;
	size_t size = sizeof(*g) + count * sizeof(g->items[0]) + (count + 1) * sizeof(g->attrs[0]);

	g = kzalloc(size, GFP_KERNEL);
	if (!g)
		return NULL;
	g->items = (struct kapi_sysfs_attr *)(g + 1);
	g->attrs = (struct attribute **)(g->items + count);
	g->count = count;
	g->kobj_flavour = kobj_flavour;
	g->group.name = name;
	g->group.attrs = g->attrs;
	g->groups[0] = &g->group;
	return g;
}

/*
 * sysfs_attr_init() gives every attribute of one call site one lockdep class
 * for its kernfs active reference (a store removing another directory's
 * files would then look like recursive locking): each C++ attribute brings
 * its own static key instead.
 */
static void kapi_sysfs_attr_set_key(struct attribute *attr, const void *lock_key)
{
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	attr->key = (struct lock_class_key *)lock_key;
#endif
}

/* KAPI: process context, before the group is used anywhere. */
void kapi_sysfs_group_set_attr(void *group, unsigned int index, const char *name, unsigned short mode,
			       const void *lock_key, const void *spec)
{
	struct kapi_sysfs_group *g = group;
	struct kapi_sysfs_attr *a = &g->items[index];

	if (WARN_ON(index >= g->count))
		return;
	a->spec = spec;
	a->index = index;
	if (g->kobj_flavour) {
		kapi_sysfs_attr_set_key(&a->kobj.attr, lock_key);
		a->kobj.attr.name = name;
		a->kobj.attr.mode = mode;
		a->kobj.show = kapi_kobj_show;
		a->kobj.store = kapi_kobj_store;
		g->attrs[index] = &a->kobj.attr;
	} else {
		kapi_sysfs_attr_set_key(&a->dev.attr, lock_key);
		a->dev.attr.name = name;
		a->dev.attr.mode = mode;
		a->dev.show = kapi_dev_show;
		a->dev.store = kapi_dev_store;
		g->attrs[index] = &a->dev.attr;
	}
}

void kapi_sysfs_group_free(void *group)
{
	kfree(group);
}

/* KAPI: process context. The group's flavour must match the kobject's. */
int kapi_sysfs_create_group(void *kobj, void *group)
{
	return sysfs_create_group(kobj, &((struct kapi_sysfs_group *)group)->group);
}

void kapi_sysfs_remove_group(void *kobj, void *group)
{
	sysfs_remove_group(kobj, &((struct kapi_sysfs_group *)group)->group);
}

/* KAPI: process context. The link holds no reference that keeps target alive: remove it first. */
int kapi_sysfs_create_link(void *kobj, void *target, const char *name)
{
	return sysfs_create_link(kobj, target, name);
}

void kapi_sysfs_remove_link(void *kobj, const char *name)
{
	sysfs_remove_link(kobj, name);
}

/* KAPI: from a store upcall only (self lives on the C stack of kapi_*_store). */
int kapi_sysfs_remove_self(void *self)
{
	struct kapi_sysfs_self *s = self;

	if (s->dev)
		return device_remove_file_self(s->dev, s->dev_attr);
	return sysfs_remove_file_self(s->kobj, &s->kobj_attr->attr);
}

/* KAPI: any context; buf is the page sysfs gave to show (bounded by PAGE_SIZE). */
int kapi_sysfs_vemit_at(char *buf, int at, const char *fmt, va_list args)
{
	if (WARN_ON_ONCE(at < 0 || at >= PAGE_SIZE))
		return 0;
	return vscnprintf(buf + at, PAGE_SIZE - at, fmt, args);
}
