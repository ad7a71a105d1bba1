//! A supervising process that ends: stopped by a signal, it takes its
//! children's groups with it and dies of the signal; killed outright, its
//! child dies by the kernel's hand and a program further down by the
//! lifeline. The supervising process is this test binary again, started
//! with [`ROLE`] naming the part it plays.

use ktrav_proc::{ByLine, Capped, Heard, Lines, Notes};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Set on this binary started again: the part it plays.
const ROLE: &str = "KTRAV_PROC_TEST_ROLE";
/// Where the supervised shell writes the pids the test looks for.
const PIDS: &str = "KTRAV_PROC_TEST_PIDS";

/// This binary, running only the test `name`, with `role`.
fn again(name: &str, role: &str, pids: &Path) -> Command {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args(["--exact", name, "--nocapture", "--test-threads=1"]).env(ROLE, role).env(PIDS, pids).stdout(Stdio::null());
    c
}

fn role() -> Option<String> {
    std::env::var(ROLE).ok()
}

/// Runs `script` under the supervisor until this process ends.
fn supervise(script: &str, extra: &[&str]) {
    struct Ignore;
    impl Lines<()> for Ignore {
        type Kept = ();
        fn line(&mut self, _: &str, _: &Notes<()>) {}
        fn kept(self) {}
    }
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c").arg(script).args(extra);
    let _ = ktrav_proc::run(cmd, Duration::from_secs(120), ByLine::new(Ignore), Capped::new(1), |_: Heard<()>| None);
    panic!("the supervised shell ended before the test stopped it");
}

/// Supervises a shell that starts this binary again, test `name` in
/// `role`, in a session of its own and watching the lifeline, writes its
/// own pid and that program's, and sleeps.
fn supervise_a_watcher(name: &str, role: &str) {
    // The background program gets the shell's standard input (the
    // lifeline) on fd 3, since `&` alone would give it /dev/null.
    let script = format!(
        "exec 3<&0; {ROLE}={role} setsid \"$0\" \"$@\" <&3 3<&- >/dev/null 2>&1 & echo $$ $! > \"${PIDS}\"; exec sleep 120"
    );
    supervise(&script, &[std::env::current_exe().unwrap().to_str().unwrap(), "--exact", name, "--test-threads=1"]);
}

/// The pids the supervised shell wrote, once it has.
fn pids(file: &Path) -> Vec<String> {
    let started = Instant::now();
    loop {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        if text.ends_with('\n') {
            return text.split_whitespace().map(String::from).collect();
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the supervised shell did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether the process `pid` is gone (a zombie is), waiting a little for a
/// killed one to go.
fn gone(pid: &str) -> bool {
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

fn scratch(name: &str) -> PathBuf {
    let file = std::env::temp_dir().join(format!("ktrav-proc-{name}-{}", std::process::id()));
    let _ = std::fs::remove_file(&file);
    file
}

fn kill(pid: &str) {
    // SAFETY: signals a process this test started.
    unsafe { libc::kill(pid.parse().unwrap(), libc::SIGKILL) };
}

/// SIGTERM to a supervising process: the child and the `sleep` it started
/// (which no kernel rule reaches) are killed with their group, and the
/// supervisor dies of SIGTERM, as its own parent should see.
#[test]
fn a_stopped_supervisor_takes_the_groups_with_it_and_dies_of_the_signal() {
    const NAME: &str = "a_stopped_supervisor_takes_the_groups_with_it_and_dies_of_the_signal";
    if role().as_deref() == Some("stopped") {
        supervise("sleep 120 & echo $$ $! > \"$KTRAV_PROC_TEST_PIDS\"; wait", &[]);
    }
    if role().is_some() {
        return;
    }
    let file = scratch("stopped");
    let mut parent = again(NAME, "stopped", &file).spawn().unwrap();
    let pids = pids(&file);
    // SAFETY: signals the process this test started.
    unsafe { libc::kill(parent.id() as i32, libc::SIGTERM) };
    let status = parent.wait().unwrap();
    let left: Vec<_> = pids.iter().filter(|p| !gone(p)).cloned().collect();
    left.iter().for_each(|p| kill(p));
    let _ = std::fs::remove_file(&file);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{status:?}");
    assert!(left.is_empty(), "{left:?} of {pids:?} outlived the stopped supervisor");
}

/// SIGKILL to a supervising process, where no handler runs: its child (a
/// `sleep`) dies by the kernel's hand, and a program the child started in
/// a session of its own, which watches its standard input, by the lifeline.
#[test]
fn a_killed_supervisors_child_and_what_watches_the_lifeline_die_with_it() {
    const NAME: &str = "a_killed_supervisors_child_and_what_watches_the_lifeline_die_with_it";
    match role().as_deref() {
        Some("killed") => supervise_a_watcher(NAME, "watcher"),
        Some("watcher") => {
            ktrav_proc::die_with_the_supervisor();
            std::thread::sleep(Duration::from_secs(120));
            return;
        }
        Some(_) => return,
        None => {}
    }
    let file = scratch("killed");
    let mut parent = again(NAME, "killed", &file).spawn().unwrap();
    let pids = pids(&file);
    assert_eq!(pids.len(), 2, "{pids:?}");
    parent.kill().unwrap();
    parent.wait().unwrap();
    let left: Vec<_> = pids.iter().filter(|p| !gone(p)).cloned().collect();
    left.iter().for_each(|p| kill(p));
    let _ = std::fs::remove_file(&file);
    assert!(left.is_empty(), "{left:?} of {pids:?} outlived the killed supervisor");
}

/// A program that watches the lifeline and catches signals with a handler
/// installed without SA_RESTART, as compute-sanitizer's is in the program
/// it runs: each signal interrupts the lifeline's read, which is no end;
/// the program lives on until its supervisor is killed.
#[test]
fn a_signal_that_interrupts_the_lifeline_is_not_its_end() {
    const NAME: &str = "a_signal_that_interrupts_the_lifeline_is_not_its_end";
    match role().as_deref() {
        Some("signalled") => supervise_a_watcher(NAME, "caught"),
        Some("caught") => {
            extern "C" fn caught(_: libc::c_int) {}
            // SAFETY: installs a handler that does nothing.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = caught as extern "C" fn(libc::c_int) as usize;
                action.sa_flags = 0;
                libc::sigaction(libc::SIGUSR1, &action, std::ptr::null_mut());
            }
            ktrav_proc::die_with_the_supervisor();
            std::thread::sleep(Duration::from_secs(120));
            return;
        }
        Some(_) => return,
        None => {}
    }
    let file = scratch("signalled");
    let mut parent = again(NAME, "signalled", &file).spawn().unwrap();
    let pids = pids(&file);
    assert_eq!(pids.len(), 2, "{pids:?}");
    let watcher = &pids[1];
    // Long enough for the watcher to have installed its handler.
    std::thread::sleep(Duration::from_millis(500));
    // To each of its threads, so that the lifeline's gets one for sure.
    let pid: libc::pid_t = watcher.parse().unwrap();
    for _ in 0..5 {
        for task in std::fs::read_dir(format!("/proc/{watcher}/task")).unwrap().flatten() {
            let tid: libc::pid_t = task.file_name().to_string_lossy().parse().unwrap();
            // SAFETY: signals a thread of the process this test started.
            unsafe { libc::syscall(libc::SYS_tgkill, pid, tid, libc::SIGUSR1) };
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let alive = std::fs::read_to_string(format!("/proc/{watcher}/stat"))
        .is_ok_and(|s| !s.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')));
    parent.kill().unwrap();
    parent.wait().unwrap();
    let left: Vec<_> = pids.iter().filter(|p| !gone(p)).cloned().collect();
    left.iter().for_each(|p| kill(p));
    let _ = std::fs::remove_file(&file);
    assert!(alive, "the watcher ended when a signal interrupted its lifeline's read");
    assert!(left.is_empty(), "{left:?} of {pids:?} outlived the killed supervisor");
}
