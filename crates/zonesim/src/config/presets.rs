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
        "NVMe SSD after MQSim's default: 8 ch x 4 chips x 2 dies x 2 planes, MLC 8 KiB pages, 7% OP (128 blocks/plane instead of 2048)",
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
];

pub fn preset_text(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|p| p.0 == name).map(|p| p.2)
}
