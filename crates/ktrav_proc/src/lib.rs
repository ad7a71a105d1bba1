//! `ktrav_proc` supervises a child process: the lab checker's worker (one
//! per shape, `ktrav_gpu::check`) and the grader's check (one per
//! submission, `ktrav_grade::run`) are both started and watched by [`run`].
//!
//! * The child runs in a process group of its own, and the whole group is
//!   killed (SIGKILL) at its deadline, when the child ends (whatever it left
//!   behind in the group goes with it), and when this process is stopped by
//!   SIGINT, SIGTERM or SIGHUP ([`stop_children_on_signal`]).
//! * The child dies with this process. The kernel kills it when the thread
//!   that started it ends (`PR_SET_PDEATHSIG`), and its standard input is a
//!   pipe, the lifeline, whose write end only the supervisor holds: a
//!   program started further down (by a wrapper such as compute-sanitizer,
//!   which the kernel's rule does not reach) ends when it closes
//!   ([`die_with_the_supervisor`]).
//! * The wait has a deadline and no polling loop: a thread blocks in
//!   `waitid(2)` until the child ends, and the supervisor waits on a channel
//!   with `recv_timeout` for that, or for a note from the output's readers;
//!   the caller's watch hears each note and may move the deadline ([`Heard`]).
//! * Standard output and standard error are read to their end on threads of
//!   their own, however much the child prints, so it never blocks on a full
//!   pipe: a [`Sink`] keeps what it needs ([`Capped`]: the first bytes up to
//!   a cap; [`ByLine`]: lines of at most [`LINE_CAP`] bytes) and drops the
//!   rest. After the child ends, the wait for the pipes to close is bounded
//!   ([`PIPE_GRACE`]): a grandchild that left the group can hold them open.
//! * How it ended is an [`Ending`].
//!
//! A crate of its own because it fits neither shared crate: `ktrav` is the
//! host model every chapter links and starts no processes, while this
//! installs process-wide signal handling and makes Linux system calls no
//! chapter needs; and it needs nothing from CUDA, so the grader uses it
//! without linking `ktrav_gpu`.

use std::io::{self, Read};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{mpsc, Arc, Mutex, MutexGuard, Once, PoisonError};
use std::time::{Duration, Instant};

/// How long the pipes may stay open after the child ended before the
/// supervisor stops waiting for them (their readers go on draining them).
pub const PIPE_GRACE: Duration = Duration::from_secs(5);

/// The longest line a [`ByLine`] hands over; the rest of a longer line is
/// read and dropped.
pub const LINE_CAP: usize = 64 << 10;

/// How a supervised child ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// It exited with this code.
    Exited(i32),
    /// It died of this signal, sent by someone other than the supervisor.
    Signalled(i32),
    /// It ran past its deadline, and its group was killed (SIGKILL).
    Deadline,
    /// This process was stopped by this signal and killed the child's group
    /// on its way out; or it was already stopping, and the child was never
    /// started.
    ParentStopped(i32),
    /// How it ended could not be read (another waiter reaped it).
    Lost,
}

/// One of the child's output streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// What the caller's watch hears while the child runs.
#[derive(Debug, PartialEq, Eq)]
pub enum Heard<N> {
    /// A note a [`Sink`] sent, in the order it was sent.
    Note(N),
    /// The stream reached its end: the child (and everything that held the
    /// pipe) closed it.
    Closed(Stream),
}

/// How a [`Sink`] sends the watch a note.
pub struct Notes<N>(Option<mpsc::Sender<Event<N>>>);

impl<N> Notes<N> {
    /// Sends `note` to the watch. Notes sent after the deadline passed, or
    /// after the supervisor stopped waiting, are dropped.
    pub fn send(&self, note: N) {
        if let Some(tx) = &self.0 {
            let _ = tx.send(Event::Heard(Heard::Note(note)));
        }
    }

    fn nowhere() -> Self {
        Notes(None)
    }
}

enum Event<N> {
    Heard(Heard<N>),
    Exited,
}

/// Where one output stream goes. Its reader hands it every byte the child
/// writes, on a thread of its own, until the stream ends.
pub trait Sink<N>: Send + 'static {
    /// What it kept, handed back in [`Finished`].
    type Kept;
    /// The next bytes of the stream.
    fn take(&mut self, bytes: &[u8], notes: &Notes<N>);
    /// The stream ended (not called when the supervisor stopped waiting for
    /// it first).
    fn end(&mut self, _notes: &Notes<N>) {}
    /// What it kept, when the supervisor is done with the child.
    fn kept(self) -> Self::Kept;
}

/// The first `cap` bytes of a stream; the rest are read and dropped.
pub struct Capped {
    cap: usize,
    kept: Vec<u8>,
}

impl Capped {
    pub fn new(cap: usize) -> Self {
        Capped { cap, kept: Vec::new() }
    }
}

impl<N> Sink<N> for Capped {
    type Kept = Vec<u8>;

    fn take(&mut self, bytes: &[u8], _notes: &Notes<N>) {
        let room = self.cap.saturating_sub(self.kept.len());
        self.kept.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    fn kept(self) -> Vec<u8> {
        self.kept
    }
}

/// What [`ByLine`] hands each line to.
pub trait Lines<N>: Send + 'static {
    /// What it kept, handed back in [`Finished`].
    type Kept;
    /// One line, without its end (`\n`, and any `\r` before it), bytes that
    /// are not UTF-8 replaced, and cut at [`LINE_CAP`] bytes.
    fn line(&mut self, line: &str, notes: &Notes<N>);
    /// What it kept, when the supervisor is done with the child.
    fn kept(self) -> Self::Kept;
}

/// A stream split into lines for a [`Lines`]; a last line without its end
/// is handed over too.
pub struct ByLine<L> {
    lines: L,
    pending: Vec<u8>,
}

impl<L> ByLine<L> {
    pub fn new(lines: L) -> Self {
        ByLine { lines, pending: Vec::new() }
    }

    fn push(&mut self, part: &[u8]) {
        let room = LINE_CAP.saturating_sub(self.pending.len());
        self.pending.extend_from_slice(&part[..part.len().min(room)]);
    }

    fn flush<N>(&mut self, notes: &Notes<N>)
    where
        L: Lines<N>,
    {
        let text = String::from_utf8_lossy(&self.pending);
        self.lines.line(text.trim_end_matches('\r'), notes);
        self.pending.clear();
    }
}

impl<N, L: Lines<N>> Sink<N> for ByLine<L> {
    type Kept = L::Kept;

    fn take(&mut self, mut bytes: &[u8], notes: &Notes<N>) {
        while let Some(at) = bytes.iter().position(|&b| b == b'\n') {
            self.push(&bytes[..at]);
            self.flush(notes);
            bytes = &bytes[at + 1..];
        }
        self.push(bytes);
    }

    fn end(&mut self, notes: &Notes<N>) {
        if !self.pending.is_empty() {
            self.flush(notes);
        }
    }

    fn kept(mut self) -> L::Kept {
        if !self.pending.is_empty() {
            self.flush(&Notes::nowhere());
        }
        self.lines.kept()
    }
}

/// What [`run`] saw of a child.
#[derive(Debug)]
pub struct Finished<O, E> {
    pub ending: Ending,
    /// What the standard output's sink kept.
    pub stdout: O,
    /// What the standard error's sink kept.
    pub stderr: E,
    /// From the start to the child's end (not counting the wait for its
    /// pipes).
    pub elapsed: Duration,
}

/// Starts `cmd` and supervises it to its end (see the crate's page).
///
/// `cmd`'s standard input, output and error and its process group are the
/// supervisor's to set. The deadline is `limit` from the start; `watch`,
/// called on this thread, hears each note the sinks send and each stream's
/// end, and when it returns `Some(limit)` the deadline becomes `limit` from
/// then (later or earlier). It hears every note sent before the child ended
/// or its deadline passed, and none after the deadline.
///
/// `Err` only when the child could not be started. The first call installs
/// [`stop_children_on_signal`] with [`die_of`], unless the program
/// installed it first.
pub fn run<N, O, E>(
    cmd: Command,
    limit: Duration,
    stdout: O,
    stderr: E,
    watch: impl FnMut(Heard<N>) -> Option<Duration>,
) -> io::Result<Finished<O::Kept, E::Kept>>
where
    N: Send + 'static,
    O: Sink<N>,
    E: Sink<N>,
{
    stop_children_on_signal(die_of);
    supervise(&GROUPS, cmd, limit, PIPE_GRACE, stdout, stderr, watch)
}

/// The process groups of the children running now.
struct Groups {
    /// The signal this process was stopped by: no child is started after it.
    stopping: Option<i32>,
    running: Vec<Running>,
}

struct Running {
    pgid: i32,
    /// The signal whose handler killed this group.
    stopped_by: Option<i32>,
}

impl Groups {
    const fn new() -> Self {
        Groups { stopping: None, running: Vec::new() }
    }

    /// Kills every running group, and starts none after.
    fn stop(&mut self, sig: i32) {
        self.stopping = Some(sig);
        for r in &mut self.running {
            r.stopped_by = Some(sig);
            kill_group(r.pgid);
        }
    }
}

static GROUPS: Mutex<Groups> = Mutex::new(Groups::new());

/// A running child's group in the registry. Leaving it, when the child has
/// ended or when the supervising call unwinds, kills whatever is left in
/// the group.
struct Registered<'a> {
    groups: &'a Mutex<Groups>,
    pgid: i32,
    left: bool,
}

impl Registered<'_> {
    /// Leaves the registry, killing what the child left in its group; says
    /// which signal's handler killed the group, if one did.
    fn leave(&mut self) -> Option<i32> {
        if std::mem::replace(&mut self.left, true) {
            return None;
        }
        let mut g = lock(self.groups);
        let entry = g.running.iter().position(|r| r.pgid == self.pgid).map(|at| g.running.swap_remove(at));
        kill_group(self.pgid);
        entry.and_then(|r| r.stopped_by)
    }
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        self.leave();
    }
}

/// The lock, whether or not a thread panicked holding it: the registry is
/// only ever left whole.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn kill_group(pgid: i32) {
    // SAFETY: kill(2) with a negative pid signals that process group; it
    // touches no memory of this process. The group's leader is reaped only
    // after it leaves the registry, so the id is never another's.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

/// On SIGINT, SIGTERM or SIGHUP (Ctrl-C, `scancel`, a Slurm time limit, a
/// closed terminal), kills every supervised child's process group, then
/// calls `then` with the signal, which ends the process. The children's
/// groups no longer hear the terminal's Ctrl-C themselves. Installed once:
/// a later call changes nothing.
pub fn stop_children_on_signal(then: fn(i32) -> !) {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else { return };
        std::thread::spawn(move || {
            if let Some(sig) = signals.forever().next() {
                // The lock is held until the process ends: no supervised
                // call returns and no child is started meanwhile.
                let mut groups = lock(&GROUPS);
                groups.stop(sig);
                then(sig)
            }
        });
    });
}

/// Ends this process as the signal `sig` would have without a handler, so
/// its parent sees it die of that signal; `128 + sig` if it cannot.
pub fn die_of(sig: i32) -> ! {
    let _ = signal_hook::low_level::emulate_default_handler(sig);
    std::process::exit(128 + sig)
}

/// The child's side of the lifeline: when its standard input is a pipe,
/// a thread waits for the pipe to close (its supervisor ended, or gave up
/// on it) and ends the process at once. Standard input that is not a pipe
/// (a program started by hand) is not watched, and a read interrupted by
/// a signal is no end.
pub fn die_with_the_supervisor() {
    use std::os::unix::fs::FileTypeExt;
    let is_pipe = std::fs::metadata("/proc/self/fd/0").map(|m| m.file_type().is_fifo()).unwrap_or(false);
    if !is_pipe {
        return;
    }
    std::thread::spawn(|| {
        let mut sink = [0u8; 64];
        let mut stdin = io::stdin();
        loop {
            match stdin.read(&mut sink) {
                Ok(0) => break,
                Ok(_) => {}
                // A signal caught by a handler installed without SA_RESTART
                // (compute-sanitizer's, in the program it runs) interrupts
                // the read: the pipe is still open.
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // Only the pipe's end says the supervisor is gone.
                Err(_) => return,
            }
        }
        // SAFETY: _exit ends the process at once, whatever its other threads
        // are doing.
        unsafe { libc::_exit(1) }
    });
}

/// Run in the child between fork and exec: asks the kernel to kill it when
/// its parent's thread ends, and ends it if the parent already has.
fn die_with_parent(parent: libc::pid_t) -> io::Result<()> {
    // SAFETY: prctl and getppid only read their arguments, and _exit ends
    // the child; all three are async-signal-safe, as code between fork and
    // exec must be.
    unsafe {
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
            return Err(io::Error::last_os_error());
        }
        if libc::getppid() != parent {
            libc::_exit(1);
        }
    }
    Ok(())
}

/// Blocks until the child `pid` has ended, leaving it to be reaped: until
/// then its process group's id cannot be reused.
fn wait_without_reaping(pid: u32) {
    loop {
        // SAFETY: siginfo_t is plain data; waitid writes only into it.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, libc::WEXITED | libc::WNOWAIT) };
        if r == 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return;
        }
    }
}

/// Reads `from` to its end into the sink in `slot`, then says so.
fn drain<N: Send + 'static, S: Sink<N>>(
    mut from: impl Read + Send + 'static,
    slot: Arc<Mutex<Option<S>>>,
    stream: Stream,
    tx: mpsc::Sender<Event<N>>,
) {
    std::thread::spawn(move || {
        let notes = Notes(Some(tx.clone()));
        let mut buf = vec![0u8; 64 << 10];
        loop {
            match from.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    if let Some(sink) = lock(&slot).as_mut() {
                        sink.take(&buf[..n], &notes);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        if let Some(sink) = lock(&slot).as_mut() {
            sink.end(&notes);
        }
        let _ = tx.send(Event::Heard(Heard::Closed(stream)));
    });
}

/// [`run`] with its registry of groups and its grace for the pipes.
fn supervise<N, O, E>(
    groups: &Mutex<Groups>,
    mut cmd: Command,
    limit: Duration,
    grace: Duration,
    stdout: O,
    stderr: E,
    mut watch: impl FnMut(Heard<N>) -> Option<Duration>,
) -> io::Result<Finished<O::Kept, E::Kept>>
where
    N: Send + 'static,
    O: Sink<N>,
    E: Sink<N>,
{
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: the closure runs in the forked child before exec and makes
    // only async-signal-safe calls (see die_with_parent).
    unsafe {
        cmd.pre_exec(move || die_with_parent(parent));
    }
    let started = Instant::now();
    let mut child = match spawn_registered(groups, &mut cmd)? {
        Ok(child) => child,
        Err(sig) => {
            let (stdout, stderr) = (stdout.kept(), stderr.kept());
            return Ok(Finished { ending: Ending::ParentStopped(sig), stdout, stderr, elapsed: Duration::ZERO });
        }
    };
    let pgid = child.id() as i32;
    let mut registered = Registered { groups, pgid, left: false };
    // Held while the child runs: dropping it closes the lifeline.
    let mut lifeline = child.stdin.take();
    let out = Arc::new(Mutex::new(Some(stdout)));
    let err = Arc::new(Mutex::new(Some(stderr)));
    let events = watch_child(&mut child, &out, &err);
    let mut deadline = started + limit;
    let mut overran = false;
    let mut open = 2;
    // What the watch is told; after the deadline, nothing.
    let mut hear = |heard: Heard<N>, overran: bool, open: &mut usize| {
        if matches!(heard, Heard::Closed(_)) {
            *open -= 1;
        }
        if overran {
            None
        } else {
            watch(heard)
        }
    };
    loop {
        let event = if overran {
            events.recv().ok()
        } else {
            match events.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(e) => Some(e),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    kill_group(pgid);
                    lifeline = None;
                    overran = true;
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => None,
            }
        };
        match event {
            Some(Event::Heard(heard)) => {
                if let Some(limit) = hear(heard, overran, &mut open) {
                    deadline = Instant::now() + limit;
                }
            }
            // The waiting thread holds a sender until it has sent this.
            Some(Event::Exited) | None => break,
        }
    }
    let elapsed = started.elapsed();
    drop(lifeline);
    // Before the child is reaped, while the group's id is still its own.
    let stopped_by = registered.leave();
    let status = child.wait();
    // The pipes close when everything that held them has ended; a process
    // that left the group can hold them open, so the wait is bounded.
    let until = Instant::now() + grace;
    while open > 0 {
        match events.recv_timeout(until.saturating_duration_since(Instant::now())) {
            Ok(Event::Heard(heard)) => {
                hear(heard, overran, &mut open);
            }
            Ok(Event::Exited) => {}
            Err(_) => break,
        }
    }
    let ending = ending_of(stopped_by, overran, status);
    let stdout = lock(&out).take().expect("only the supervisor takes a sink").kept();
    let stderr = lock(&err).take().expect("only the supervisor takes a sink").kept();
    Ok(Finished { ending, stdout, stderr, elapsed })
}

/// Starts `cmd` and registers its process group in `groups`; or, when this
/// process is stopping, starts nothing and gives the signal (`Err`).
fn spawn_registered(groups: &Mutex<Groups>, cmd: &mut Command) -> io::Result<Result<Child, i32>> {
    let mut g = lock(groups);
    if let Some(sig) = g.stopping {
        return Ok(Err(sig));
    }
    let child = cmd.spawn()?;
    g.running.push(Running { pgid: child.id() as i32, stopped_by: None });
    Ok(Ok(child))
}

/// Drains the child's two pipes into `out` and `err`, and waits for it to
/// exit without reaping it, each on a thread of its own: the events they
/// send arrive on the receiver returned.
fn watch_child<N: Send + 'static, O: Sink<N>, E: Sink<N>>(
    child: &mut Child,
    out: &Arc<Mutex<Option<O>>>,
    err: &Arc<Mutex<Option<E>>>,
) -> mpsc::Receiver<Event<N>> {
    let (tx, events) = mpsc::channel();
    drain(child.stdout.take().expect("stdout is piped"), Arc::clone(out), Stream::Stdout, tx.clone());
    drain(child.stderr.take().expect("stderr is piped"), Arc::clone(err), Stream::Stderr, tx.clone());
    let pid = child.id();
    let exited = tx;
    std::thread::spawn(move || {
        wait_without_reaping(pid);
        let _ = exited.send(Event::Exited);
    });
    events
}

/// How the child ended: with this process's stop when one killed its group,
/// at the deadline when it overran, else as its status says.
fn ending_of(stopped_by: Option<i32>, overran: bool, status: io::Result<ExitStatus>) -> Ending {
    match (stopped_by, overran, status) {
        (Some(sig), _, _) => Ending::ParentStopped(sig),
        (None, true, _) => Ending::Deadline,
        (None, false, Ok(s)) => match (s.code(), s.signal()) {
            (Some(code), _) => Ending::Exited(code),
            (None, Some(sig)) => Ending::Signalled(sig),
            (None, None) => Ending::Lost,
        },
        (None, false, Err(_)) => Ending::Lost,
    }
}

#[cfg(test)]
mod tests;
