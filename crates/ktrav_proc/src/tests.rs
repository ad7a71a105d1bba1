//! The supervisor on ordinary processes: shells, `sleep`, `head`.

use super::*;

fn sh(script: &str) -> Command {
    let mut c = Command::new("/bin/sh");
    c.arg("-c").arg(script);
    c
}

/// Every line, kept.
struct Collect(Vec<String>);

impl<N> Lines<N> for Collect {
    type Kept = Vec<String>;
    fn line(&mut self, line: &str, _notes: &Notes<N>) {
        self.0.push(line.to_string());
    }
    fn kept(self) -> Vec<String> {
        self.0
    }
}

/// Lines counted, and the longest one's length.
#[derive(Default)]
struct Count {
    lines: usize,
    longest: usize,
}

impl<N> Lines<N> for Count {
    type Kept = (usize, usize);
    fn line(&mut self, line: &str, _notes: &Notes<N>) {
        self.lines += 1;
        self.longest = self.longest.max(line.len());
    }
    fn kept(self) -> (usize, usize) {
        (self.lines, self.longest)
    }
}

/// Every line sent on to the watch as a note.
struct Tell;

impl Lines<String> for Tell {
    type Kept = ();
    fn line(&mut self, line: &str, notes: &Notes<String>) {
        notes.send(line.to_string());
    }
    fn kept(self) {}
}

const CAP: usize = 1 << 20;

/// `sh -c script` with the first [`CAP`] bytes of each stream kept.
fn capped(script: &str, limit: Duration) -> Finished<Vec<u8>, Vec<u8>> {
    run(sh(script), limit, Capped::new(CAP), Capped::new(CAP), |_: Heard<()>| None).expect("sh starts")
}

/// Whether the process `pid` is gone (a zombie is), waiting a little for a
/// killed one to go.
fn gone(pid: &str) -> bool {
    let pid = pid.trim();
    assert!(!pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()), "not a pid: {pid:?}");
    let stat = format!("/proc/{pid}/stat");
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(5) {
        match std::fs::read_to_string(&stat) {
            Err(_) => return true,
            Ok(s) if s.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')) => return true,
            Ok(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    false
}

#[test]
fn an_exit_code_and_a_signal_are_told_apart() {
    let ok = capped("echo out; echo err >&2; exit 3", Duration::from_secs(30));
    assert_eq!(
        (ok.ending, ok.stdout.as_slice(), ok.stderr.as_slice()),
        (Ending::Exited(3), &b"out\n"[..], &b"err\n"[..])
    );
    let segv = capped("kill -SEGV $$", Duration::from_secs(30));
    assert_eq!(segv.ending, Ending::Signalled(libc::SIGSEGV));
}

#[test]
fn a_program_that_cannot_start_is_an_error_not_an_ending() {
    let r = run(
        Command::new("/nonexistent/program"),
        Duration::from_secs(1),
        Capped::new(1),
        Capped::new(1),
        |_: Heard<()>| None,
    );
    assert_eq!(r.map(|f| f.ending).unwrap_err().kind(), io::ErrorKind::NotFound);
}

/// At the deadline the child is killed with its whole group: the `sleep`
/// it started goes too, and with it the pipe it held. (The deadline is set
/// once the child has said what it started.)
#[test]
fn a_child_past_its_deadline_is_killed_with_its_group() {
    let limit = Duration::from_millis(300);
    let mut grandchild = String::new();
    let hung =
        run(
            sh("sleep 30 & echo $!; wait"),
            Duration::from_secs(60),
            ByLine::new(Tell),
            Capped::new(CAP),
            |h| match h {
                Heard::Note(pid) => {
                    grandchild = pid;
                    Some(limit)
                }
                Heard::Closed(_) => None,
            },
        )
        .unwrap();
    assert_eq!(hung.ending, Ending::Deadline);
    assert!(hung.elapsed >= limit && hung.elapsed < Duration::from_secs(5), "{:?}", hung.elapsed);
    assert!(gone(&grandchild), "the child's own child {grandchild} outlived the deadline");
}

/// Whatever a child leaves running in its group ends when the child does.
#[test]
fn what_an_exited_child_left_in_its_group_ends_with_it() {
    let left = capped("sleep 30 >/dev/null 2>&1 & echo $!", Duration::from_secs(30));
    assert_eq!(left.ending, Ending::Exited(0));
    let grandchild = String::from_utf8(left.stdout).unwrap();
    assert!(gone(&grandchild), "{grandchild} outlived the child that started it");
}

/// Ten megabytes, whether in lines or none, are read to the end (the child
/// exits by itself, never blocked on a full pipe), and only the cap kept.
#[test]
fn ten_megabytes_are_drained_and_only_the_cap_kept() {
    let total: usize = 10_000_000;
    let zeros = capped(&format!("head -c {total} /dev/zero; echo done >&2"), Duration::from_secs(60));
    assert_eq!((zeros.ending, zeros.stdout.len(), zeros.stderr.as_slice()), (Ending::Exited(0), CAP, &b"done\n"[..]));
    let line = "0123456789\n";
    let lines = run(
        sh(&format!("yes {} | head -c {total}", line.trim_end())),
        Duration::from_secs(60),
        ByLine::new(Count::default()),
        Capped::new(CAP),
        |_: Heard<()>| None,
    )
    .unwrap();
    assert_eq!(lines.ending, Ending::Exited(0));
    assert_eq!(lines.stdout, (total.div_ceil(line.len()), line.len() - 1), "a last line without its end counts");
    // One line three times the cap: cut, and the next line still read.
    let long = run(
        sh(&format!("head -c {} /dev/zero | tr '\\000' x; echo; echo after", 3 * LINE_CAP)),
        Duration::from_secs(60),
        ByLine::new(Collect(Vec::new())),
        Capped::new(CAP),
        |_: Heard<()>| None,
    )
    .unwrap();
    assert_eq!(long.stdout.len(), 2);
    assert_eq!((long.stdout[0].len(), long.stdout[1].as_str()), (LINE_CAP, "after"));
}

/// A process that left the child's group and holds its standard output
/// delays the end by the grace only, and what was read before is kept.
#[test]
fn a_grandchild_that_left_the_group_delays_the_end_by_the_grace_only() {
    let groups = Mutex::new(Groups::new());
    let grace = Duration::from_millis(500);
    let started = Instant::now();
    let f = supervise(
        &groups,
        // The child ends once the leftover has left its group.
        sh(
            "echo before; setsid sleep 30 2>/dev/null </dev/null & echo $!; \
            group() { cut -d' ' -f5 /proc/$1/stat; }; while [ \"$(group $!)\" = \"$(group $$)\" ]; do sleep 0.05; done",
        ),
        Duration::from_secs(30),
        grace,
        Capped::new(CAP),
        Capped::new(CAP),
        |_: Heard<()>| None,
    )
    .unwrap();
    let waited = started.elapsed();
    let out = String::from_utf8(f.stdout).unwrap();
    let leftover = out.lines().nth(1).expect("the leftover's pid").to_string();
    // SAFETY: signals the test's own leftover process.
    unsafe { libc::kill(leftover.parse().unwrap(), libc::SIGKILL) };
    assert_eq!(f.ending, Ending::Exited(0));
    assert!(waited >= grace && waited < Duration::from_secs(5), "{waited:?}");
    assert!(out.starts_with("before\n"), "{out}");
}

/// The watch moves the deadline on each note: a child that prints a line
/// every 0.3 s runs to its end under a limit of 1 s restarted on each line,
/// and is stopped without the restarts; a note can also bring it nearer.
#[test]
fn notes_move_the_deadline_both_ways() {
    let limit = Duration::from_secs(1);
    let script = "for i in 1 2 3 4 5 6; do echo $i; sleep 0.3; done";
    let watched = |restart: bool| {
        let mut heard = Vec::new();
        let f = run(sh(script), limit, ByLine::new(Tell), Capped::new(CAP), |h| {
            heard.push(h);
            restart.then_some(limit)
        })
        .unwrap();
        (f.ending, heard)
    };
    let (ending, heard) = watched(true);
    assert_eq!(ending, Ending::Exited(0));
    let notes: Vec<_> =
        heard.iter().filter_map(|h| if let Heard::Note(n) = h { Some(n.as_str()) } else { None }).collect();
    assert_eq!(notes, ["1", "2", "3", "4", "5", "6"]);
    assert!(heard.contains(&Heard::Closed(Stream::Stdout)) && heard.contains(&Heard::Closed(Stream::Stderr)));
    assert_eq!(watched(false).0, Ending::Deadline);
    let sooner =
        run(sh("echo now; exec sleep 30"), Duration::from_secs(60), ByLine::new(Tell), Capped::new(CAP), |_| {
            Some(Duration::ZERO)
        })
        .unwrap();
    assert!(sooner.ending == Ending::Deadline && sooner.elapsed < Duration::from_secs(5), "{sooner:?}");
}

/// When this process is stopped, the running child's group is killed and
/// the call says so; a child is never started after.
#[test]
fn a_stopped_parent_kills_its_children_and_starts_no_more() {
    static STOPPING: Mutex<Groups> = Mutex::new(Groups::new());
    let pid_file = std::env::temp_dir().join(format!("ktrav-proc-grandchild-{}", std::process::id()));
    let _ = std::fs::remove_file(&pid_file);
    let script = format!("sleep 30 & echo $! > {}; wait", pid_file.display());
    let running = std::thread::spawn(move || {
        supervise(
            &STOPPING,
            sh(&script),
            Duration::from_secs(60),
            PIPE_GRACE,
            Capped::new(CAP),
            Capped::new(CAP),
            |_: Heard<()>| None,
        )
        .unwrap()
    });
    let started = Instant::now();
    let grandchild = loop {
        let text = std::fs::read_to_string(&pid_file).unwrap_or_default();
        if text.ends_with('\n') {
            break text;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the child did not start");
        std::thread::sleep(Duration::from_millis(10));
    };
    let _ = std::fs::remove_file(&pid_file);
    lock(&STOPPING).stop(libc::SIGTERM);
    let stopped = running.join().unwrap();
    assert_eq!(stopped.ending, Ending::ParentStopped(libc::SIGTERM));
    assert!(stopped.elapsed < Duration::from_secs(10), "{:?}", stopped.elapsed);
    assert!(gone(&grandchild), "{grandchild} outlived the stop");
    let dir = std::env::temp_dir().join(format!("ktrav-proc-stopped-{}", std::process::id()));
    let after = supervise(
        &STOPPING,
        sh(&format!("touch {}", dir.display())),
        Duration::from_secs(60),
        PIPE_GRACE,
        Capped::new(CAP),
        Capped::new(CAP),
        |_: Heard<()>| None,
    )
    .unwrap();
    assert_eq!(after.ending, Ending::ParentStopped(libc::SIGTERM));
    assert!(!dir.exists(), "a child was started after the stop");
}
