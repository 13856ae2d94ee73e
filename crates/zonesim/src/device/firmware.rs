//! The device with the multi-core firmware model and the data cache (docs/firmware.md; MCMQ,
//! MCMQ §III): [`Device::submit_queued`] runs a command fetched from host queue `qid` through the
//! cores (firmware::cores), the data cache (firmware::cache) and the namespace's FTL. With
//! `firmware.model = "off"` and no `cache.bytes` it is exactly [`Device::submit`].

use super::{Device, Namespace};
use crate::config::FirmwareModel;
use crate::engine::SimTime;
use crate::firmware::cache::DataCache;
use crate::firmware::cores::{Cores, Txns};
use crate::interface::zone::Lba;
use crate::interface::{Command, Completion, Op};
use crate::nand::SLOT_BYTES;
use crate::stats::firmware::{CacheReport, CoreReport, FirmwareReport, LatencyPart, LockReport};

/// What [`Device::submit_queued`] answers.
#[derive(Debug, Clone, Copy)]
pub enum Submitted {
    /// The command's completion.
    Done(Completion),
    /// Its flash work ends `at`; then call [`Device::complete_queued`] with `token`, which
    /// answers when the host sees it. `flash`: the FTL's completion of the command (the LBA
    /// an append wrote, a refusal), done `at`.
    Flash {
        at: SimTime,
        token: u32,
        flash: Completion,
    },
}

/// The firmware model's state of a device.
#[derive(Clone, Default)]
pub struct FirmwareState {
    pub cores: Option<Cores>,
    /// The data cache of each namespace (None: zoned, or no `cache.bytes`).
    pub caches: Vec<Option<DataCache>>,
    /// Pages to write back (scratch).
    wb: Vec<u32>,
}

impl FirmwareState {
    pub(super) fn new(dev: &Device, seed: u64) -> FirmwareState {
        let cfg = &dev.cfg;
        let geo = &dev.nand.geo;
        let cores = (cfg.firmware.model == FirmwareModel::Cores).then(|| {
            // The planes each namespace allocates on: those of its NVM set.
            let ns_planes = dev
                .regions
                .iter()
                .map(|r| {
                    let view = &r.blocks;
                    (0..view.dies)
                        .flat_map(|d| {
                            let d = view.phys_die(d);
                            (0..geo.planes).map(move |p| d * geo.planes + p)
                        })
                        .collect()
                })
                .collect();
            Cores::new(cfg, ns_planes, geo.dies * geo.planes, seed)
        });
        // The cache is shared out among the block namespaces (zoned ones have none).
        let block = |n: &&Namespace| n.zones().is_none();
        let blocks = dev.namespaces.iter().filter(block).count() as u64;
        let caches = if cfg.cache.bytes == 0 {
            Vec::new()
        } else {
            let pages = (cfg.cache.bytes / SLOT_BYTES / blocks.max(1)) as u32;
            dev.namespaces
                .iter()
                .map(|n| {
                    let logical = n.capacity_bytes() / SLOT_BYTES;
                    block(&n).then(|| DataCache::new(pages, logical))
                })
                .collect()
        };
        FirmwareState {
            cores,
            caches,
            wb: Vec::new(),
        }
    }

    /// Neither cores nor a cache: commands go straight to the FTL.
    pub fn off(&self) -> bool {
        self.cores.is_none() && self.caches.is_empty()
    }
}

impl Device {
    /// When the controller can fetch the next command: the HIL core's free time with the
    /// cores model, None without (fetching costs nothing, arbitration never matters).
    pub fn fetch_free_at(&self, now: SimTime) -> Option<SimTime> {
        self.fw.cores.as_ref().map(|c| c.fetch_free_at(now))
    }

    /// Execute one command of namespace `ns` fetched from host queue `qid` at `now`, which
    /// the host submitted at `issued`. With the cores model the answer is when its flash work
    /// is done and a token for [`Device::complete_queued`], to be called then.
    pub fn submit_queued(
        &mut self,
        issued: SimTime,
        now: SimTime,
        ns: usize,
        qid: u32,
        cmd: Command,
    ) -> Submitted {
        if self.fw.off() {
            return Submitted::Done(self.submit(now, ns, cmd));
        }
        self.nand.advance(now);
        self.link.advance(now);
        if let Some(c) = &mut self.fw.cores {
            c.advance(now);
        }
        let now = now + self.overhead_ns;
        let n = cmd.pages as u64;
        if n > 0 && cmd.lba.0 + n > self.capacity_bytes(ns) / SLOT_BYTES {
            self.out_of_range += 1;
            return Submitted::Done(Completion::refused(now));
        }
        let spp = self.nand.geo.slots_per_page;
        let flash_pages = |p: u32| p.div_ceil(spp).max(1);
        let cached = self.fw.caches.get(ns).is_some_and(Option::is_some);
        let write = matches!(cmd.op, Op::Write { .. } | Op::Append);
        let mut misses = 0;
        if let Some(Some(c)) = self.fw.caches.get_mut(ns) {
            let first = cmd.lba.0 as u32;
            match cmd.op {
                Op::Read => misses = (first..first + cmd.pages).filter(|&l| !c.read(l)).count(),
                Op::Write { .. } => {
                    for l in first..first + cmd.pages {
                        if let Some(e) = c.insert(l, true) {
                            self.fw.wb.push(e);
                        }
                    }
                }
                Op::Trim => (first..first + cmd.pages).for_each(|l| c.discard(l)),
                Op::Flush => c.take_dirty(&mut self.fw.wb),
                _ => {}
            }
        }
        let count = flash_pages(cmd.pages);
        let to_flash = match cmd.op {
            Op::Read if cached && misses == 0 => 0,
            Op::Read => count,
            Op::Write { .. } if cached => 0,
            _ if write => count,
            _ => 0,
        };
        let front = self.fw.cores.as_mut().map(|c| {
            c.front(
                issued,
                now,
                Txns {
                    ns,
                    qid,
                    lpa: cmd.lba.0,
                    write,
                    count,
                    to_flash,
                    cached,
                },
            )
        });
        let ready = front.map_or(now, |f| f.flash_ready);
        let c = self.flash_part(ns, ready, cmd, cached, to_flash);
        match (front, &mut self.fw.cores) {
            (Some(f), Some(cores)) => Submitted::Flash {
                at: c.done,
                token: cores.park(f),
                flash: c,
            },
            _ => Submitted::Done(c),
        }
    }

    /// The firmware's back half of the command `token` whose flash work is done at `now`;
    /// returns when the host sees its completion.
    pub fn complete_queued(&mut self, now: SimTime, token: u32) -> SimTime {
        let cores = self
            .fw
            .cores
            .as_mut()
            .expect("a token comes from the cores model");
        cores.advance(now);
        cores.back(token, now)
    }

    /// The FTL's (or the data cache's) part of a command whose transactions are ready at `t`.
    fn flash_part(
        &mut self,
        ns: usize,
        t: SimTime,
        cmd: Command,
        cached: bool,
        to_flash: u32,
    ) -> Completion {
        let bytes = cmd.pages as u64 * SLOT_BYTES;
        let c = match cmd.op {
            Op::Read if cached && to_flash == 0 => Completion::at(self.link.to_host(t, bytes)),
            Op::Write { .. } if cached => Completion::at(self.link.to_device(t, bytes)),
            Op::Flush if cached => {
                let wb = self.write_back(ns, t);
                let (mut lent, namespaces) = self.lend(false);
                namespaces[ns].submit(&mut lent, wb, cmd)
            }
            _ => {
                let (mut lent, namespaces) = self.lend(false);
                namespaces[ns].submit(&mut lent, t, cmd)
            }
        };
        if cached && cmd.op == Op::Read && to_flash > 0 {
            // Fill the read pages (clean); dirty pages they evict are written back.
            if let Some(Some(dc)) = self.fw.caches.get_mut(ns) {
                let first = cmd.lba.0 as u32;
                for l in first..first + cmd.pages {
                    if let Some(e) = dc.insert(l, false) {
                        self.fw.wb.push(e);
                    }
                }
            }
        }
        if self.fw.wb.is_empty() {
            return c;
        }
        // Evictions of a write happen when it arrives, those of a read fill when its data is
        // back; a write waits until the space its evictions free is handed to the FTL.
        let at = if matches!(cmd.op, Op::Write { .. }) {
            t
        } else {
            c.done
        };
        let wb = self.write_back(ns, at);
        match cmd.op {
            Op::Write { .. } => Completion::at(c.done.max(wb)),
            _ => c,
        }
    }

    /// Write every data cache's dirty pages back from `t` and empty the caches; returns when
    /// the FTL has taken the last page. Ends the precondition (sim/precondition.rs): the
    /// measured phase starts with a cold, clean data cache.
    pub fn drain_data_caches(&mut self, t: SimTime) -> SimTime {
        let mut end = t;
        for ns in 0..self.fw.caches.len() {
            let Some(dc) = &mut self.fw.caches[ns] else {
                continue;
            };
            dc.take_dirty(&mut self.fw.wb);
            dc.empty();
            end = end.max(self.write_back(ns, t));
        }
        end
    }

    /// Write the pages in `fw.wb` back to namespace `ns` from `t`; returns when the FTL has
    /// taken the last one.
    fn write_back(&mut self, ns: usize, t: SimTime) -> SimTime {
        let mut wb = std::mem::take(&mut self.fw.wb);
        let mut last = t;
        for &lpa in &wb {
            let ready = match &mut self.fw.cores {
                Some(c) => c.background(t, 1),
                None => t,
            };
            let (mut lent, namespaces) = self.lend(false);
            let cmd = Command {
                op: Op::Write { hint: 0 },
                lba: Lba(lpa as u64),
                pages: 1,
            };
            let done = namespaces[ns].submit(&mut lent, ready, cmd).done;
            if let Some(c) = &mut self.fw.cores {
                c.background_done(done, 1);
            }
            last = last.max(done);
        }
        wb.clear();
        self.fw.wb = wb;
        last
    }

    /// The `firmware` section of the report (None with the model off and no data cache).
    pub fn firmware_report(&self, window_ns: u64) -> Option<FirmwareReport> {
        if self.fw.off() {
            return None;
        }
        let cfg = &self.cfg.firmware;
        let window = window_ns.max(1) as f64;
        let mut r = FirmwareReport {
            model: match cfg.model {
                FirmwareModel::Off => "off",
                FirmwareModel::Cores => "cores",
            },
            core_mhz: cfg.core_mhz,
            workers: self.fw.cores.as_ref().map_or(0, |c| c.workers() as u32),
            ..FirmwareReport::default()
        };
        if let Some(c) = &self.fw.cores {
            for (i, core) in c.cores.iter().enumerate() {
                let busy = core.busy_ns as f64 / window;
                let spin = core.spin_ns as f64 / window;
                r.cores.insert(
                    i.to_string(),
                    CoreReport {
                        role: core.role.name(),
                        handlers: core.handlers,
                        busy_share: busy,
                        spin_share: spin,
                        work_share: busy - spin,
                        idle_share: (1.0 - busy).max(0.0),
                    },
                );
            }
            for (name, s) in c.lock_stats() {
                r.locks.insert(name.to_string(), LockReport::from_stats(&s));
            }
            r.latency_breakdown_us = c
                .breakdown
                .parts()
                .iter()
                .map(|(n, h)| (n.to_string(), LatencyPart::from_hist(h)))
                .collect();
            r.requests = c.requests;
        }
        for (i, dc) in self.fw.caches.iter().enumerate() {
            if let Some(dc) = dc {
                r.cache.insert(
                    format!("ns{i}"),
                    CacheReport {
                        pages: dc.capacity(),
                        hit_rate: dc.counters.hit_rate(),
                        counters: dc.counters,
                    },
                );
            }
        }
        Some(r)
    }

    pub(super) fn check_firmware(&self) -> Result<(), String> {
        if let Some(c) = &self.fw.cores {
            c.check()?;
        }
        for dc in self.fw.caches.iter().flatten() {
            if !dc.check() {
                return Err("data cache index and slots disagree".into());
            }
        }
        Ok(())
    }

    pub(super) fn reset_firmware_counters(&mut self) {
        self.nand.page_type_reads = [0; 4];
        if let Some(c) = &mut self.fw.cores {
            c.reset_counters();
        }
        for dc in self.fw.caches.iter_mut().flatten() {
            dc.counters = Default::default();
        }
    }
}
