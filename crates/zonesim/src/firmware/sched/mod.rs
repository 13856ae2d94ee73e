//! Scheduling of flash commands per die (design.md §1 "Scheduling", ConZone+ §4.2).
//!
//! The default is a FIFO command queue per die: commands start in the order the firmware
//! issues them, each at the later of its ready time and the die's busy-until time
//! ([`crate::nand::NandArray`] keeps the timelines). Host and GC commands share these queues, so
//! GC delays host I/O on the dies it occupies (foreground GC is not preemptible here).
