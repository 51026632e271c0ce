#!/bin/sh
# Run calico-render as Helm's post-renderer: the rendered chart on stdin, the result on stdout.
# CALICO_RENDER names the binary when it is not `calico-render` on PATH.
exec "${CALICO_RENDER:-calico-render}" post-render "$@"
