//! The wire objects calico-spec knows, as one enum in bundle order.
