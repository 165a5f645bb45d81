/* SPDX-License-Identifier: MIT */
/*
 * bt.h: bt's C API but the Lua binding's (bt_lua.h) and the viewer's (bt_view.h), in one include:
 * the engine (bt_core.h), recording (bt_record.h: the recorder, statistics, the log file) and the
 * scheduler (bt_sched.h: the brain scheduler, serial or on workers: a pool of threads or the
 * host's executor), with the version (bt_version.h). libbtcore (CMake bt::core, pkg-config
 * btcore) holds them all. A host may include only the headers of the layers it uses: one that
 * includes bt_core.h alone can link the engine alone (libbtengine: bt::engine, pkg-config
 * btengine). docs/c-api.md lists the layers.
 */
#ifndef BT_H
#define BT_H

#include "bt_version.h"
#include "bt_core.h"
#include "bt_record.h"
#include "bt_sched.h"

#endif
