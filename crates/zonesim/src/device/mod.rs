//! A whole simulated device: the NAND array, the host link and the L2P cache shared by its
//! namespaces, and the namespaces with their FTLs. [`Device::submit`] takes one host command
//! at its arrival time and returns its completion time; all device state changes at arrival
//! (the analytic timelines place each flash operation in the future).

use crate::config::DeviceConfig;
use crate::engine::SimTime;
use crate::error::{Error, Result};
use crate::firmware::ftl::{PageFtl, Shared};
use crate::firmware::mapping::{L2pCache, Lpa};
use crate::host::{HostIo, IoKind};
use crate::interface::Link;
use crate::nand::{NandArray, SLOT_BYTES};

/// One namespace (logical unit) of the device.
pub enum Namespace {
    /// Block interface, page-mapped.
    Conventional(PageFtl),
}

pub struct Device {
    pub cfg: DeviceConfig,
    pub nand: NandArray,
    pub link: Link,
    pub cache: L2pCache,
    pub namespaces: Vec<Namespace>,
}

impl Device {
    pub fn new(cfg: &DeviceConfig, seed: u64) -> Device {
        let nand = NandArray::new(cfg);
        let logical = nand.geo.logical_pages(cfg.ftl.overprovisioning);
        let map_pages = PageFtl::map_pages_for(cfg, logical);
        let cache_pages = (cfg.ftl.l2p_cache_bytes / cfg.nand.page_bytes as u64) as u32;
        Device {
            nand,
            link: Link::new(cfg.host.link_mb_s),
            cache: L2pCache::new(cache_pages, map_pages),
            namespaces: vec![Namespace::Conventional(PageFtl::new(cfg, 0, seed))],
            cfg: cfg.clone(),
        }
    }

    /// Capacity of namespace `ns` in bytes.
    pub fn capacity_bytes(&self, ns: usize) -> u64 {
        match &self.namespaces[ns] {
            Namespace::Conventional(f) => f.logical_pages() * SLOT_BYTES,
        }
    }

    pub fn check_namespace(&self, ns: usize) -> Result<()> {
        if ns >= self.namespaces.len() {
            return Err(Error::Usage(format!(
                "--namespace {ns}: the device has {} namespace(s)",
                self.namespaces.len()
            )));
        }
        Ok(())
    }

    /// Execute one host command arriving at `now`; returns its completion time.
    /// Byte ranges are widened to whole 4 KiB pages.
    pub fn submit(&mut self, now: SimTime, ns: usize, io: HostIo) -> SimTime {
        let mut sh = Shared {
            nand: &mut self.nand,
            cache: &mut self.cache,
            link: &mut self.link,
        };
        let first = io.offset / SLOT_BYTES;
        let n = if io.len == 0 {
            0
        } else {
            ((io.offset + io.len - 1) / SLOT_BYTES - first + 1) as u32
        };
        let lpa = Lpa(first as u32);
        match &mut self.namespaces[ns] {
            Namespace::Conventional(f) => match io.kind {
                IoKind::Read => f.read(&mut sh, now, lpa, n),
                IoKind::Write => f.write(&mut sh, now, lpa, n),
                IoKind::Trim => f.trim(&mut sh, now, lpa, n),
                IoKind::Flush => f.flush(&mut sh, now),
                // Zone management on a conventional namespace is not supported: completes as a
                // no-op (the host model only issues it to zoned namespaces).
                IoKind::ZoneReset | IoKind::ZoneFinish => now,
            },
        }
    }

    /// One background-GC step on any namespace that wants it (the host is idle).
    pub fn background_gc(&mut self, now: SimTime) -> bool {
        let mut sh = Shared {
            nand: &mut self.nand,
            cache: &mut self.cache,
            link: &mut self.link,
        };
        let mut did = false;
        for ns in &mut self.namespaces {
            match ns {
                Namespace::Conventional(f) => did |= f.background_gc(&mut sh, now),
            }
        }
        did
    }

    pub fn check_invariants(&self) -> std::result::Result<(), String> {
        for ns in &self.namespaces {
            match ns {
                Namespace::Conventional(f) => f.check_invariants()?,
            }
        }
        Ok(())
    }
}
