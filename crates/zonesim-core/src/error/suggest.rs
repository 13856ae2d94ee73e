//! "Did you mean": the candidate nearest to a misspelt name, for the error messages of every
//! front end (device keys, presets, fio options); under `error` because it serves them.

/// The candidate nearest to `word` when it is a likely typo: within an edit distance of 2 (1
/// for words of up to 4 letters; a transposition of neighbours counts once), compared without
/// case. Ties go to the first candidate, so the answer is deterministic.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let word = word.to_ascii_lowercase();
    let limit = if word.len() <= 4 { 1 } else { 2 };
    candidates
        .into_iter()
        .map(|c| {
            (
                strsim::damerau_levenshtein(&word, &c.to_ascii_lowercase()),
                c,
            )
        })
        .filter(|&(d, c)| d <= limit && d < c.len())
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::nearest;

    #[test]
    fn typos_find_their_name_and_strangers_find_none() {
        let keys = ["iodepth", "bs", "rw", "size"];
        assert_eq!(nearest("iodepht", keys), Some("iodepth"));
        assert_eq!(nearest("IODEPTH", keys), Some("iodepth"));
        assert_eq!(nearest("sz", keys), None, "short words: one edit at most");
        assert_eq!(nearest("frobnicate", keys), None);
        assert_eq!(
            nearest("conzone-papr", ["conzone-paper", "zufs-2026"]),
            Some("conzone-paper")
        );
    }
}
