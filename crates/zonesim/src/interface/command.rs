//! The device-side command set: what crosses from the host interface into a namespace's
//! firmware, and what comes back (the NVMe / ZNS and UFS / ZUFS command sets reduced to what the
//! model distinguishes).
//!
//! The host side (`host::HostIo`, in bytes) never reaches the device: the run (`sim`) turns
//! each host request into a [`Command`] on whole 4 KiB logical pages with [`Command::widen`].

use super::zone::Lba;
use crate::engine::SimTime;
use crate::nand::SLOT_BYTES;

/// Zone management actions (ZNS Zone Management Send / ZBC zone commands).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneAction {
    Open,
    Close,
    Finish,
    Reset,
}

/// What a command asks of the namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Read,
    /// Write with the host's lifetime hint (0 none, 1 short .. 4 extreme).
    Write {
        hint: u8,
    },
    /// Zone append to the zone holding `lba`: the device picks the LBA (its write pointer).
    Append,
    /// Budget-based in-place update (ZMS "Challenge #2"): an overwrite of LBAs below
    /// a zone's write pointer, taken into SLC while `zone.ipu_budget_bytes` allows and answered
    /// `rejected` beyond it. At the write pointer, or with no budget, it is a plain write (zone
    /// rules apply). On a conventional namespace, a write.
    InPlace {
        hint: u8,
    },
    /// Device-side copy (ZMS copy offloading, NVMe Simple Copy) of `pages` pages from `lba` to
    /// `dst` of the same namespace: flash reads and programs inside the device, no host-link
    /// transfer of the data. On a zoned namespace `dst` obeys the rules of a write.
    Copy {
        dst: Lba,
    },
    /// Discard / deallocate / unmap.
    Trim,
    /// Cache flush (fsync / FUA barrier): drains the write buffers.
    Flush,
    /// Zone management on the zone holding `lba`.
    Zone(ZoneAction),
}

/// One device command: `pages` 4 KiB logical pages from `lba` of one namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Command {
    pub op: Op,
    pub lba: Lba,
    pub pages: u32,
}

impl Command {
    /// The command covering bytes `[offset, offset + len)`, widened to whole 4 KiB pages
    /// (`len = 0`: no page).
    pub fn widen(op: Op, offset: u64, len: u64) -> Command {
        let first = offset / SLOT_BYTES;
        let pages = if len == 0 {
            0
        } else {
            ((offset + len - 1) / SLOT_BYTES - first + 1) as u32
        };
        Command {
            op,
            lba: Lba(first),
            pages,
        }
    }
}

/// A command's completion: when the device answers, (zone append) the LBA it wrote, and
/// whether the device refused it.
///
/// With `resume` set the command is not complete yet: it waits inside the device (a read for
/// its map page), and `done` is when the caller must resume it (`Device::resume` with this
/// token), which answers with the next `Completion`. Only callers that ask for it
/// (`Device::submit_deferring`) ever see one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    pub done: SimTime,
    /// Zone append only: the first LBA written, or None if the command was rejected.
    pub appended: Option<Lba>,
    /// The device refused the command (an in-place update beyond the budget, a zone-rule
    /// violation of an append, an in-place update or a copy): nothing changed, the host may
    /// fall back (e.g. write out of place).
    pub rejected: bool,
    /// A read met an uncorrectable bit error (`nand.errors`): the command completes with a
    /// media error (the NVMe "Unrecovered Read Error", SCSI MEDIUM ERROR).
    pub media_error: bool,
    /// The device's token of a command still in flight, to resume at `done`.
    pub resume: Option<u32>,
}

impl Completion {
    /// A completion at `done` carrying no LBA.
    #[inline]
    pub fn at(done: SimTime) -> Completion {
        Completion {
            done,
            appended: None,
            rejected: false,
            media_error: false,
            resume: None,
        }
    }

    /// A refusal at `done`.
    #[inline]
    pub fn refused(done: SimTime) -> Completion {
        Completion {
            rejected: true,
            ..Completion::at(done)
        }
    }

    /// A command parked in the device as `token`, to be resumed at `at`.
    #[inline]
    pub fn resume_at(at: SimTime, token: u32) -> Completion {
        Completion {
            done: at,
            appended: None,
            rejected: false,
            media_error: false,
            resume: Some(token),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_ranges_widen_to_whole_pages() {
        let c = Command::widen(Op::Read, 4095, 2);
        assert_eq!((c.lba, c.pages), (Lba(0), 2));
        let c = Command::widen(Op::Write { hint: 0 }, 8192, 4096);
        assert_eq!((c.lba, c.pages), (Lba(2), 1));
        assert_eq!(Command::widen(Op::Flush, 12288, 0).pages, 0);
    }
}
