//! The day-two patch in one call, with the semantics of `calico-render patch`: the desired
//! objects against the live ones, the fields only the operator's defaults set kept as the
//! cluster has them, one guarded patch per object.

use calico_spec::cluster_network::{self, Loaded};
use calico_spec::objects::Object;
use serde_json::Value;

use super::{
    Note, ObjectPatch, PatchError, PoolRemoval, StreamPatch, Unstated, diff_streams, keep_unstated,
};

/// How [`day_two`] treats a live Installation value where the desired one comes only from the
/// operator's write-back defaults.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DayTwoOptions {
    /// Revert such values to the defaults (`--revert-unstated`) instead of keeping them. The
    /// default, `false`, keeps what the cluster chose (a chart's `kubeletVolumePluginPath:
    /// None`) and reports it in [`DayTwo::unstated`].
    pub revert_unstated: bool,
    /// Remove an Installation pool that LIVE lists and DESIRED does not (`--remove-pools`).
    /// The default, `false`, refuses such a patch with [`PatchError::PoolsRemoved`]: a pool
    /// that still holds addresses breaks the pods using them, so it is disabled and emptied
    /// first (`calico-render plan` prints those steps).
    pub remove_pools: bool,
}

impl DayTwoOptions {
    /// The options with `revert_unstated` as given.
    pub fn revert_unstated(revert_unstated: bool) -> DayTwoOptions {
        DayTwoOptions {
            revert_unstated,
            ..DayTwoOptions::default()
        }
    }

    /// These options with `remove_pools` as given.
    #[must_use]
    pub fn with_remove_pools(self, remove_pools: bool) -> DayTwoOptions {
        DayTwoOptions {
            remove_pools,
            ..self
        }
    }
}

/// The day-two patch: what `calico-render patch` prints and reports.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct DayTwo {
    /// One guarded patch per object present on both sides (empty ones included; see
    /// [`StreamPatch::changed`]), with the notes about objects found on one side only.
    pub stream: StreamPatch,
    /// The live values kept because only the operator's defaults set them on the desired side
    /// (empty with [`DayTwoOptions::revert_unstated`]); the CLI prints each as a note.
    pub unstated: Vec<Unstated>,
}

/// The patch from `live` to what the loaded ClusterNetwork renders, as `calico-render patch
/// -f cluster.yaml --live live.yaml` computes it.
///
/// `live` is what `kubectl get ... -o json` or a kube client returns: objects, a `List` or
/// typed `<Kind>List`s (looked into), status and server metadata included. Unlike
/// [`super::diff_object`], the raw diff of two objects, an Installation field that the
/// ClusterNetwork states neither in its vocabulary nor in `spec.overrides` (so only the
/// operator's defaults set it) keeps its live value unless `options` say to revert it.
///
/// # Errors
/// [`PatchError`] as [`diff_streams`] gives it: a refused change (a pool's CIDR), objects that
/// cannot be identified, no object in common; [`PatchError::PoolsRemoved`] when the patch
/// would remove a pool and [`DayTwoOptions::remove_pools`] is not set.
pub fn day_two(
    loaded: &Loaded,
    live: &[Value],
    options: &DayTwoOptions,
) -> Result<DayTwo, PatchError> {
    let desired: Vec<Value> = loaded.objects.iter().map(Object::to_value).collect();
    let stated = cluster_network::stated_objects(&loaded.cluster_network);
    day_two_objects(&desired, Some(&stated), live, options)
}

/// [`day_two`] for desired objects already compiled: `stated` is the objects as the
/// ClusterNetwork states them ([`cluster_network::stated_objects`]), `None` for upstream
/// manifests, whose every field is stated.
///
/// # Errors
/// As [`day_two`].
pub fn day_two_objects(
    desired: &[Value],
    stated: Option<&[Value]>,
    live: &[Value],
    options: &DayTwoOptions,
) -> Result<DayTwo, PatchError> {
    let (desired, unstated) = match stated {
        Some(stated) if !options.revert_unstated => keep_unstated(desired, stated, live),
        _ => (desired.to_vec(), Vec::new()),
    };
    let stream = diff_streams(&desired, live)?;
    if !options.remove_pools {
        let removals: Vec<PoolRemoval> = stream
            .patches()
            .iter()
            .flat_map(ObjectPatch::notes)
            .filter_map(|note| match note {
                Note::PoolRemoved { object, pool } => Some(PoolRemoval {
                    object: object.clone(),
                    pool: pool.clone(),
                }),
                _ => None,
            })
            .collect();
        if !removals.is_empty() {
            return Err(PatchError::PoolsRemoved { removals });
        }
    }
    Ok(DayTwo { stream, unstated })
}
