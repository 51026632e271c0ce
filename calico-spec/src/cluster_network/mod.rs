//! `ClusterNetwork`: our declarative input kind, and its compilation into wire objects.
