//! Launches recorded once and replayed: a CUDA graph.
//!
//! A long series of small launches (K.7's one launch per diagonal) costs the
//! host a driver call per launch, and the stream runs no faster than the
//! host issues them. Captured into a graph, the whole series is handed to
//! the device in one call and replayed without the host in between: the
//! cheapest way the card offers to run those same launches, and so the fair
//! yardstick for anything that claims to replace them.
//!
//! The runner's stream is the legacy default stream, which CUDA does not let
//! a capture record, so a graph is captured on a stream of its own, made for
//! it and dropped with it. [`Graph::replay_ms`] first waits for everything
//! already queued on the runner's stream (the buffers' poisoning, uploads),
//! so the replay sees what the runner left, and waits for the replay to end
//! before it returns, so whatever the runner queues next sees the graph's
//! writes. Inside a capture, buffers are passed by their device address
//! ([`Gpu::address`], taken before the capture), so no copy-tracking event
//! from outside the capture enters the graph.

use crate::runner::{Args, Gpu, Kernel};
use anyhow::{Context, Result};
use cudarc::driver::{sys, CudaGraph, CudaStream};
use ktrav::LaunchConfig;
use std::cell::Cell;
use std::sync::Arc;

/// Launches being recorded into a graph: what the closure handed to
/// [`Graph::capture`] queues its launches on.
pub struct Capture {
    stream: Arc<CudaStream>,
    launches: Cell<usize>,
}

impl Capture {
    /// Starts a launch of `function` on the capturing stream; push its
    /// arguments with `.arg(..)` (buffers as their [`Gpu::address`]) and hand
    /// it to [`Capture::enqueue`].
    pub fn args<'a>(&'a self, function: &'a Kernel) -> Args<'a> {
        self.stream.launch_builder(function)
    }

    /// Records one launch with the book's launch configuration; nothing runs
    /// until the graph is replayed.
    pub fn enqueue(&self, mut args: Args<'_>, cfg: &LaunchConfig, shared_bytes: u32) -> Result<()> {
        let launch = cudarc::driver::LaunchConfig {
            grid_dim: (cfg.grid.x, cfg.grid.y, 1),
            block_dim: (cfg.block.x, cfg.block.y, 1),
            shared_mem_bytes: shared_bytes,
        };
        // SAFETY: the caller pushes the arguments its kernel declares, in
        // order and with matching types, and keeps every buffer whose
        // address it passed alive for as long as the graph is replayed.
        unsafe { args.launch(launch) }.context("recording a launch into a graph failed")?;
        self.launches.set(self.launches.get() + 1);
        Ok(())
    }
}

/// A series of launches captured once, ready to be replayed.
pub struct Graph {
    graph: CudaGraph,
    stream: Arc<CudaStream>,
    launches: usize,
}

impl Graph {
    /// Records the launches `record` queues into a graph and instantiates
    /// it; nothing is launched yet. The graph's stream lives as long as the
    /// graph.
    pub fn capture(gpu: &Gpu, record: impl FnOnce(&Capture) -> Result<()>) -> Result<Graph> {
        let stream = gpu.stream().context().new_stream().context("creating a stream for a graph failed")?;
        stream
            .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .context("starting a stream capture failed")?;
        let capture = Capture { stream: stream.clone(), launches: Cell::new(0) };
        let recorded = record(&capture);
        // End the capture whatever happened, so the stream is usable again.
        let ended = stream.end_capture(sys::CUgraphInstantiate_flags(0));
        recorded?;
        let graph = ended.context("ending the capture or instantiating the graph failed")?;
        let graph = graph.context("the capture recorded no graph")?;
        graph.upload().context("uploading the graph failed")?;
        Ok(Graph { graph, stream, launches: capture.launches.get() })
    }

    /// How many launches the graph holds.
    pub fn launches(&self) -> usize {
        self.launches
    }

    /// Replays the whole graph once after everything queued on `gpu`'s
    /// stream, and waits for it; returns the replay's time in milliseconds,
    /// from events on the graph's stream around the one graph launch.
    pub fn replay_ms(&self, gpu: &Gpu) -> Result<f32> {
        gpu.synchronize()?;
        let timing = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
        let start = self.stream.record_event(timing).context("recording an event failed")?;
        self.graph.launch().context("launching the graph failed")?;
        let end = self.stream.record_event(timing).context("recording an event failed")?;
        end.synchronize().context("the graph's kernels failed")?;
        start.elapsed_ms(&end).context("reading the events failed")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::PushKernelArg;
    use ktrav::{Dim2, Shape};

    /// On a GPU: the runner's own kernel, captured once as two launches over
    /// the two halves of a buffer (rows offset by the pointer), replayed
    /// twice over a poisoned buffer, fills it exactly as one launch would;
    /// without one, says it was skipped.
    #[test]
    fn a_captured_graph_replays_its_launches() {
        let gpu = match crate::open() {
            Ok(gpu) => gpu,
            Err(reason) => return eprintln!("skipped: no GPU ({reason})"),
        };
        let shape = Shape::new(64, 48);
        let f = gpu.function("ktrav_selftest", "fill_coords").unwrap();
        let mut out = gpu.poisoned::<i32>(shape.elements() as usize).unwrap();
        let base = gpu.address(&out);
        let half = Shape::new(shape.rows / 2, shape.cols);
        let cfg = LaunchConfig::covering(half, Dim2::new(16, 16)).unwrap();
        let (rows, cols) = (half.rows as i64, half.cols as i64);
        let halves = [base, base + half.elements() * 4];
        let graph = Graph::capture(&gpu, |c| {
            for ptr in &halves {
                // fill_coords(int* out, long long rows, long long cols)
                let mut args = c.args(&f);
                args.arg(ptr).arg(&rows).arg(&cols);
                c.enqueue(args, &cfg, 0)?;
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(graph.launches(), 2);
        for _ in 0..2 {
            gpu.poison(&mut out).unwrap();
            let ms = graph.replay_ms(&gpu).unwrap();
            assert!(ms >= 0.0);
            let got = gpu.download(&out).unwrap();
            let want: Vec<i32> = (0..shape.elements())
                .map(|i| ((i % half.elements()) / shape.cols * 1000 + i % shape.cols) as i32)
                .collect();
            assert_eq!(got, want);
        }
    }
}
