//! What the file system asks of the device: device-neutral commands on the metadata or main
//! namespace, in stages (a command with `barrier` starts when every earlier one completed:
//! fsync's data → node → flush, GC's read → write). `sim` turns them into device commands.
//! With `gc_copy_offload` GC asks for device-side copies instead (ZMS copy offloading, ZMS
//! "Challenge #3"): a write at the destination whose data the device takes from `copy_from`.

use crate::{HostIo, IoKind};

/// Which namespace a command addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Area {
    /// The conventional namespace of CP/SIT/NAT/SSA (the main one when shared).
    Meta,
    Main,
}

/// One device command of the file system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FsCmd {
    pub area: Area,
    pub io: HostIo,
    /// Starts only after every earlier command of the batch completed.
    pub barrier: bool,
    /// A device-side copy: `io` is a write of `io.len` bytes at `io.offset` whose data the
    /// device reads itself from this offset of the same area (no host-link transfer).
    pub copy_from: Option<u64>,
}

/// The commands of one file-system operation; writes and reads of adjacent blocks merge into
/// one command up to the bio size.
#[derive(Debug, Clone, Default)]
pub struct Out {
    pub cmds: Vec<FsCmd>,
    max_bio: u64,
    /// The next command pushed is a barrier.
    pending_barrier: bool,
}

impl Out {
    pub fn new(max_bio: u64) -> Out {
        Out {
            cmds: Vec::new(),
            max_bio,
            pending_barrier: false,
        }
    }

    /// The next command waits for all earlier ones.
    #[inline]
    pub fn barrier(&mut self) {
        if !self.cmds.is_empty() {
            self.pending_barrier = true;
        }
    }

    /// `len` bytes at `offset`, merged with the last command when adjacent and of one kind.
    #[inline]
    pub fn push(&mut self, area: Area, kind: IoKind, offset: u64, len: u64) {
        if !self.pending_barrier {
            if let Some(last) = self.cmds.last_mut() {
                if last.area == area
                    && last.io.kind == kind
                    && last.copy_from.is_none()
                    && matches!(
                        kind,
                        IoKind::Read | IoKind::Write | IoKind::Trim | IoKind::InPlace
                    )
                    && last.io.offset + last.io.len == offset
                    && last.io.len + len <= self.max_bio.max(len)
                {
                    last.io.len += len;
                    return;
                }
            }
        }
        self.push_new(area, HostIo::new(kind, offset, len), None);
    }

    /// A device-side copy of `len` bytes from `src` to `dst`, merged with the last command
    /// when it is a copy whose source and destination both end where these start.
    #[inline]
    pub fn push_copy(&mut self, area: Area, src: u64, dst: u64, len: u64) {
        if !self.pending_barrier {
            if let Some(last) = self.cmds.last_mut() {
                if last.area == area
                    && last.copy_from.map(|s| s + last.io.len) == Some(src)
                    && last.io.offset + last.io.len == dst
                    && last.io.len + len <= self.max_bio.max(len)
                {
                    last.io.len += len;
                    return;
                }
            }
        }
        self.push_new(area, HostIo::new(IoKind::Write, dst, len), Some(src));
    }

    fn push_new(&mut self, area: Area, io: HostIo, copy_from: Option<u64>) {
        let barrier = std::mem::take(&mut self.pending_barrier);
        self.cmds.push(FsCmd {
            area,
            io,
            barrier,
            copy_from,
        });
    }

    /// A cache flush of the device (ordered after everything before it).
    pub fn flush(&mut self) {
        self.barrier();
        self.cmds.push(FsCmd {
            area: Area::Main,
            io: HostIo::new(IoKind::Flush, 0, 0),
            barrier: self.pending_barrier || !self.cmds.is_empty(),
            copy_from: None,
        });
        self.pending_barrier = false;
        self.barrier();
    }

    pub fn clear(&mut self) {
        self.cmds.clear();
        self.pending_barrier = false;
    }
}
