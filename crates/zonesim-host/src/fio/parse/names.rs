//! The names behind the parser's "unknown option" message: the options zonesim reads (its
//! suggestions) and every option fio itself knows, so a real fio option zonesim does not model
//! is told apart from a typo.

/// The job-file options [`super::parse_job_file`] accepts (fio's names, plus zonesim's own
/// `namespace`, `ipu`, `zone_append` and `age`); a test keeps this list and the parser in step.
#[rustfmt::skip]
pub const SUPPORTED: &[&str] = &[
    "name", "rw", "readwrite", "bs", "blocksize", "size", "offset", "io_size", "io_limit",
    "number_ios", "loops", "iodepth", "numjobs", "rwmixread", "rwmixwrite", "fsync",
    "random_distribution", "norandommap", "runtime", "time_based", "thinktime", "age", "stonewall",
    "wait_for_previous", "zonemode", "max_open_zones", "zone_reset_threshold",
    "zone_reset_frequency", "zone_append", "prio", "prioclass", "ipu", "continue_on_error",
    "namespace", "write_hint", "ioengine", "direct", "directory", "nrfiles", "filesize",
    "create_on_open", "unlink", "fdatasync", "end_fsync", "filename", "group_reporting",
    "randrepeat", "write_lat_log", "write_bw_log", "write_iops_log", "log_avg_msec",
    "per_job_logs", "log_offset",
];

/// The option names and aliases of fio's own job options (`.name` / `.alias` in fio-3.42's
/// `options.c`; engine-specific options are not listed).
#[rustfmt::skip]
const FIO_OPTIONS: &[&str] = &[
    "allow_file_create", "allow_mounted_write", "allrandrepeat", "atomic", "ba",
    "block_error_percentiles", "blockalign", "blocksize", "blocksize_range",
    "blocksize_unaligned", "bs", "bs_is_seq_rand", "bs_unaligned", "bsrange", "bssplit",
    "buffer_compress_chunk", "buffer_compress_percentage", "buffer_pattern", "buffered",
    "bwavgtime", "cgroup", "cgroup_nodelete", "cgroup_weight", "clat_percentiles",
    "clocksource", "comm", "continue_on_error", "cpumask", "cpus_allowed",
    "cpus_allowed_policy", "create_fsync", "create_on_open", "create_only", "create_serialize",
    "data_placement", "dataplacement", "dedupe_global", "dedupe_mode", "dedupe_percentage",
    "dedupe_working_set_percentage", "description", "direct", "directory", "disable_bw",
    "disable_bw_measurement", "disable_clat", "disable_lat", "disable_slat", "disk_util",
    "do_verify", "dp_scheme", "end_fsync", "end_syncfs", "error_dump", "exec_postrun",
    "exec_prerun", "exit_what", "exitall", "exitall_on_error", "experimental_verify",
    "fadvise_hint", "fallocate", "fdatasync", "fdp", "fdp_pli", "fdp_pli_select", "file_append",
    "file_service_type", "filename", "filename_format", "fileoffset", "filesize", "filetype",
    "fill_device", "fill_fs", "flow", "flow_id", "flow_sleep", "flow_watermark", "fsync",
    "fsync_on_close", "gid", "gpu_dev_id", "group_reporting", "gtod_cpu", "gtod_reduce",
    "hugepage-size", "ignore_error", "ignore_zone_limits", "invalidate", "io_limit", "io_size",
    "io_submit_mode", "iodepth", "iodepth_batch", "iodepth_batch_complete",
    "iodepth_batch_complete_max", "iodepth_batch_complete_min", "iodepth_batch_submit",
    "iodepth_low", "ioengine", "iomem", "iomem_align", "iopsavgtime", "ioscheduler",
    "job_max_open_zones", "job_start_clock_id", "kb_base", "lat_percentiles",
    "latency_percentile", "latency_run", "latency_target", "latency_window", "lockfile",
    "lockmem", "log_alternate_epoch", "log_alternate_epoch_clock_id", "log_avg_msec",
    "log_compression", "log_compression_cpus", "log_entries", "log_hist_coarseness",
    "log_hist_msec", "log_issue_time", "log_max_value", "log_offset", "log_prio",
    "log_store_compressed", "log_unix_epoch", "log_window_value", "loops", "max_latency",
    "max_open_zones", "mem", "mem_align", "merge_blktrace_file", "merge_blktrace_iters",
    "merge_blktrace_scalars", "name", "new_group", "nice", "norandommap", "nr_files", "nrfiles",
    "num_range", "numa_cpu_nodes", "numa_mem_policy", "number_ios", "numjobs", "offset",
    "offset_align", "offset_increment", "opendir", "openfiles", "overwrite", "per_job_logs",
    "percentage_random", "percentage_sequential", "percentile_list", "plid_select", "plids",
    "pre_read", "prio", "prioclass", "priohint", "profile", "ramp_size", "ramp_time",
    "random_distribution", "random_generator", "randrepeat", "randseed", "rate", "rate_cycle",
    "rate_ignore_thinktime", "rate_iops", "rate_iops_min", "rate_min", "rate_process",
    "ratecycle", "ratemin", "read_beyond_wp", "read_iolog", "read_iolog_chunked", "readwrite",
    "recover_zbd_write_error", "refill_buffers", "replay_align", "replay_no_stall",
    "replay_redirect", "replay_scale", "replay_skip", "replay_time_scale", "runtime", "rw",
    "rw_sequencer", "rwmixcycle", "rwmixread", "rwmixwrite", "scramble_buffers",
    "serialize_overlap", "significant_figures", "size", "slat_percentiles", "softrandommap",
    "spr_cs", "spr_num_regions", "spr_op", "sprandom", "ss", "ss_dur", "ss_interval", "ss_ramp",
    "startdelay", "stats", "steadystate", "steadystate_check_interval", "steadystate_duration",
    "steadystate_ramp_time", "stonewall", "sync", "sync_file_range", "thinkcycles", "thinktime",
    "thinktime_blocks", "thinktime_blocks_type", "thinktime_iotime", "thinktime_spin", "thread",
    "time_based", "timeout", "trim_backlog", "trim_backlog_batch", "trim_percentage",
    "trim_verify_zero", "uid", "unified_rw_reporting", "unique_filename", "unit_base", "unlink",
    "unlink_each_loop", "verify", "verify_async", "verify_async_cpus", "verify_backlog",
    "verify_backlog_batch", "verify_dump", "verify_fatal", "verify_header_seed",
    "verify_interval", "verify_offset", "verify_only", "verify_pattern",
    "verify_pattern_interval", "verify_state_load", "verify_state_save",
    "verify_write_sequence", "verifysort", "verifysort_nr", "wait_for", "wait_for_previous",
    "write_barrier", "write_bw_log", "write_hint", "write_hist_log", "write_iolog",
    "write_iops_log", "write_lat_log", "write_zone_remainder", "zero_buffers",
    "zone_reset_frequency", "zone_reset_threshold", "zonecapacity", "zonemode", "zonerange",
    "zonesize", "zoneskip",
];

/// The error for an option the parser does not accept: a real fio option that zonesim does not
/// support says so; anything else is unknown, with the nearest supported name when one is close.
pub fn unknown_option(key: &str) -> String {
    let lower = key.to_ascii_lowercase();
    if FIO_OPTIONS.contains(&lower.as_str()) {
        return format!(
            "fio option '{key}' is not supported by zonesim (docs/workloads.md lists what is)"
        );
    }
    match zonesim_core::error::suggest::nearest(&lower, SUPPORTED.iter().copied()) {
        Some(s) => format!("unknown fio option '{key}' (did you mean '{s}'?)"),
        None => format!("unknown fio option '{key}'"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_get_the_nearest_name_and_real_fio_options_are_named_unsupported() {
        assert_eq!(
            unknown_option("iodepht"),
            "unknown fio option 'iodepht' (did you mean 'iodepth'?)"
        );
        assert_eq!(
            unknown_option("bssplit"),
            "fio option 'bssplit' is not supported by zonesim (docs/workloads.md lists what is)"
        );
        assert_eq!(
            unknown_option("frobnicate"),
            "unknown fio option 'frobnicate'"
        );
    }

    #[test]
    fn supported_names_are_fio_names_or_zonesim_extensions() {
        for s in SUPPORTED {
            assert!(
                FIO_OPTIONS.contains(s) || ["namespace", "ipu", "zone_append", "age"].contains(s),
                "{s} is neither fio's nor a declared extension"
            );
        }
    }

    /// The list and the parser agree: every listed name is accepted, and every fio name the
    /// parser accepts is listed (a new option in the parser must join [`SUPPORTED`]).
    #[test]
    fn the_list_follows_the_parser() {
        let refused = |key: &str| {
            let (mut spec, mut sync) = (super::super::default_job(), false);
            match super::super::apply(&mut spec, &mut sync, key, Some("1")) {
                Err(e) => e.starts_with("unknown fio option") || e.contains("not supported by"),
                Ok(()) => false,
            }
        };
        for s in SUPPORTED {
            assert!(!refused(s), "{s} is listed but the parser refuses it");
        }
        for f in FIO_OPTIONS.iter().filter(|f| !SUPPORTED.contains(f)) {
            assert!(refused(f), "the parser accepts {f}: add it to SUPPORTED");
        }
    }
}
