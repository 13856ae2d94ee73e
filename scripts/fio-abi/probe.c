/* The fields and constants of fio the zonesim engine uses (crates/zonesim-fio/src/abi.rs),
 * printed for the fio source tree it is compiled in: scripts/fio-abi-layouts runs it per
 * release. */
#include <stdio.h>
#include <stddef.h>
#include "fio.h"
#include "ioengines.h"
#include "optgroup.h"
#define O(s,f) printf(#s "." #f " %zu\n", offsetof(struct s, f))
#define S(s) printf("sizeof " #s " %zu\n", sizeof(struct s))
#define V(x) printf(#x " %lld\n", (long long)(x))
int main(void) {
  V(FIO_IOOPS_VERSION);
  O(thread_data, eo); O(thread_data, o.name);
  O(io_u, ddir); O(io_u, offset); O(io_u, xfer_buf); O(io_u, xfer_buflen); O(io_u, resid); O(io_u, error);
  O(fio_file, filetype); O(fio_file, real_file_size); O(fio_file, flags);
  S(ioengine_ops); O(ioengine_ops, name); O(ioengine_ops, version); O(ioengine_ops, flags); O(ioengine_ops, setup); O(ioengine_ops, init); O(ioengine_ops, queue); O(ioengine_ops, commit);
  O(ioengine_ops, getevents); O(ioengine_ops, event); O(ioengine_ops, cleanup); O(ioengine_ops, open_file); O(ioengine_ops, close_file); O(ioengine_ops, get_file_size);
  O(ioengine_ops, get_zoned_model); O(ioengine_ops, report_zones); O(ioengine_ops, reset_wp); O(ioengine_ops, get_max_open_zones);
  O(ioengine_ops, option_struct_size); O(ioengine_ops, options);
  S(fio_option); O(fio_option, maxval); O(fio_option, cb); O(fio_option, posval); O(fio_option, parent); O(fio_option, category); O(fio_option, gui_data); O(fio_option, no_free);
  S(value_pair); S(zbd_zone);
  V(FIO_Q_COMPLETED); V(FIO_Q_QUEUED); V(FIO_DISKLESSIO); V(FIO_NODISKUTIL);
  V(DDIR_READ); V(DDIR_WRITE); V(DDIR_TRIM); V(DDIR_SYNC); V(DDIR_DATASYNC); V(DDIR_SYNC_FILE_RANGE);
  V(FIO_TYPE_BLOCK); V(FIO_FILE_size_known);
  V(ZBD_NONE); V(ZBD_HOST_MANAGED); V(ZBD_ZONE_TYPE_SWR); V(ZBD_ZONE_COND_EMPTY); V(ZBD_ZONE_COND_FULL); V(ZBD_ZONE_COND_OFFLINE);
  V(FIO_OPT_STR_STORE); V(FIO_OPT_C_ENGINE); V(FIO_OPT_G_INVALID);
  return 0;
}
