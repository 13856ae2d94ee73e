//! Presets shipped with zonesim: TOML files under `presets/` at the repository root, embedded
//! at build time. Each file documents its values and their sources.

/// (name, one-line description, TOML text).
pub const PRESETS: &[(&str, &str, &str)] = &[
    (
        "ufs-conventional",
        "conventional UFS 4.0-like phone storage: TLC, 2 ch x 2 chips, 1 MiB L2P cache, 1 MiB write buffer, 7% OP, 16 GiB",
        include_str!("../../../../presets/ufs-conventional.toml"),
    ),
    (
        "nvme-ssd",
        "NVMe SSD after MQSim's default: 8 ch x 4 chips x 2 dies x 2 planes, MLC 8 KiB pages, 7% OP (128 blocks/plane instead of 2048), whole map in DRAM",
        include_str!("../../../../presets/nvme-ssd.toml"),
    ),
    (
        "conzone-paper",
        "ConZone+ §6.1 device: TLC 2 ch x 2 chips, two 384 KiB zone buffers, 1 MiB L2P; ns 0 conventional metadata in SLC, ns 1 zoned (85 x 48 MiB zones)",
        include_str!("../../../../presets/conzone-paper.toml"),
    ),
    (
        "mcmq-2022",
        "MCMQ (DATE'22) MLC SSD: 8 ch x 1 chip x 2 dies x 2 planes, 8 KiB pages, Table I LSB/MSB latencies, 512 MiB data cache (16 GiB: 1/32 of 512 GB)",
        include_str!("../../../../presets/mcmq-2022.toml"),
    ),
    (
        "supgc-cosmos",
        "Cosmos+ OpenSSD of SUP-GC (§5.1): MLC, 16 KiB pages, 128 pages/block, 64 dies x 8,192 blocks (1 TiB), 7% OP, whole map in DRAM",
        include_str!("../../../../presets/supgc-cosmos.toml"),
    ),
    (
        "cufs-2026",
        "conventional UFS baseline of ZUFS (FAST'26 §5.1): the zufs-2026 hardware as one conventional LU, two-level L1/L2 map in 1 MiB SRAM (compressed L1 off), 1.5 MiB buffer",
        include_str!("../../../../presets/cufs-2026.toml"),
    ),
    (
        "zufs-2026",
        "Zoned UFS (FAST'26 ZUFS): TLC 4 dies x 4 planes, 1056 MiB zones, ZABM slot buffers (192 KiB die flush), ZMT zone map, 1 MiB map SRAM; ns 0 conventional in SLC, ns 1 zoned (12 zones, scaled)",
        include_str!("../../../../presets/zufs-2026.toml"),
    ),
    (
        "zms-2024",
        "ZMS (ATC'24): UFS 2.1, TLC 4 dies, 32 KiB pages, 384 KiB superpage, 138 MiB zones, two 384 KiB zone buffers, SLC for unaligned flushes; ns 0 conventional, ns 1 zoned (64 zones, scaled)",
        include_str!("../../../../presets/zms-2024.toml"),
    ),
];

pub fn preset_text(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|p| p.0 == name).map(|p| p.2)
}
