//! What the file system asks of the device: device-neutral commands on the metadata or main
//! namespace, in stages (a command with `barrier` starts when every earlier one completed:
//! fsync's data → node → flush, GC's read → write). `sim` turns them into device commands.

use crate::host::{HostIo, IoKind};

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
                    && matches!(kind, IoKind::Read | IoKind::Write | IoKind::Trim)
                    && last.io.offset + last.io.len == offset
                    && last.io.len + len <= self.max_bio.max(len)
                {
                    last.io.len += len;
                    return;
                }
            }
        }
        let barrier = std::mem::take(&mut self.pending_barrier);
        self.cmds.push(FsCmd {
            area,
            io: HostIo::new(kind, offset, len),
            barrier,
        });
    }

    /// A cache flush of the device (ordered after everything before it).
    pub fn flush(&mut self) {
        self.barrier();
        self.cmds.push(FsCmd {
            area: Area::Main,
            io: HostIo::new(IoKind::Flush, 0, 0),
            barrier: self.pending_barrier || !self.cmds.is_empty(),
        });
        self.pending_barrier = false;
        self.barrier();
    }

    pub fn clear(&mut self) {
        self.cmds.clear();
        self.pending_barrier = false;
    }
}
