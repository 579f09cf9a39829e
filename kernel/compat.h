/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compatibility shims, force-included into every module. Keyed on the
 * features a kernel has, newest API first; no version checks in .c files.
 */
#ifndef _CHAOSTABLES_COMPAT_H
#define _CHAOSTABLES_COMPAT_H

#endif /* _CHAOSTABLES_COMPAT_H */
