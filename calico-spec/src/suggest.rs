//! "Did you mean": the one place that picks the closest valid spelling of a misspelt name
//! (an unknown field, enum value or ConfigMap key), with one threshold for every caller.

/// The candidate closest to `found`, when it is close enough to be a typo of it.
///
/// Distance is the Levenshtein distance (strsim) between the lowercased words; a candidate is
/// close enough when at most a third of `found`'s characters (and at least 2) differ, so
/// `blocksize` finds `blockSize` and `zzzzzz` finds nothing in `cidr`. Ties go to the candidate
/// that sorts first, so the answer does not depend on the order of `candidates`.
pub(crate) fn closest<'a>(
    found: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let found_lower = found.to_lowercase();
    let limit = (found.chars().count() / 3).max(2);
    candidates
        .into_iter()
        .map(|candidate| {
            let distance = strsim::levenshtein(&found_lower, &candidate.to_lowercase());
            (distance, candidate)
        })
        .filter(|(distance, _)| *distance <= limit)
        .min()
        .map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn typos_find_their_word_and_other_words_do_not() {
        let fields = ["name", "cidr", "blockSize", "natOutgoing"];
        assert_eq!(closest("blocksize", fields), Some("blockSize"));
        assert_eq!(closest("natOutgoin", fields), Some("natOutgoing"));
        assert_eq!(closest("cdir", fields), Some("cidr"));
        assert_eq!(closest("zzzzzz", fields), None);
        assert_eq!(closest("", fields), None);
        assert_eq!(
            closest(
                "KUBERNETES_SERVICE_HOTS",
                ["KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"]
            ),
            Some("KUBERNETES_SERVICE_HOST")
        );
        // Equal distances: the candidate that sorts first, whatever the order given.
        assert_eq!(closest("ab", ["ac", "aa"]), Some("aa"));
        assert_eq!(closest("ab", ["aa", "ac"]), Some("aa"));
    }
}
