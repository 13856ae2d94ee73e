//! Host-memory helpers for the simulator's large per-page tables (the L2P map and the reverse
//! map): transparent huge pages and software prefetch. They change where and when the host CPU
//! loads memory, never what the model computes: results and determinism are unchanged.
//!
//! The model's hottest loads are random accesses into tables of 4 bytes per 4 KiB page (16 MiB
//! for a 16 GiB device): one DRAM miss per random request, which profiles show as the largest
//! single cost of a random-read run. Two remedies:
//! - [`huge_vec`]: with 4 KiB OS pages nearly every such load also misses the TLB and walks the
//!   page table; with 2 MiB pages the whole table fits in a few TLB entries. Written by hand
//!   (no crate offers "a `Vec` advised before first touch") because the advice must be given
//!   between allocation and the first write.
//! - [`prefetch`]: a workload that knows its next address early (fio's random map, or a uniform
//!   draw computed ahead on a copy of its generator) lets the engine start the load one
//!   request ahead, so it overlaps other work.

/// `n` copies of `v` in a `Vec` whose memory is advised `MADV_HUGEPAGE` before it is written.
pub fn huge_vec<T: Copy>(n: usize, v: T) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(n);
    advise_huge(out.as_mut_ptr().cast(), n * std::mem::size_of::<T>());
    out.resize(n, v);
    out
}

const HUGE: usize = 2 << 20;

#[cfg(target_os = "linux")]
fn advise_huge(ptr: *mut u8, bytes: usize) {
    let start = (ptr as usize).next_multiple_of(HUGE);
    let end = (ptr as usize + bytes) & !(HUGE - 1);
    if end > start {
        // SAFETY: [start, end) lies inside the allocation just made; MADV_HUGEPAGE only
        // changes how the kernel backs it (an error, e.g. THP disabled, is harmless).
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_ptr: *mut u8, _bytes: usize) {}

/// Start loading the cache line of `r` (x86-64 `prefetcht0`; a no-op elsewhere).
#[inline(always)]
pub fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and has no architectural effect; `r` is a valid reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((r as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

#[cfg(test)]
mod tests {
    #[test]
    fn huge_vec_is_filled() {
        let v = super::huge_vec(5 << 20, 7u32);
        assert_eq!(v.len(), 5 << 20);
        assert!(v.iter().all(|&x| x == 7));
        assert!(super::huge_vec(0, 1u8).is_empty());
    }
}
