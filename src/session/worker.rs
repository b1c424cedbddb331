//! A background worker that runs one job at a time on its own thread and can be stopped.
//!
//! The worker owns a state (the search with its transposition table). Starting a job lends the
//! state to a new thread; stopping or waiting joins the thread and takes the state back, so the
//! table survives from one search to the next and is never shared between two searches.
//! Whatever the job prints, it prints before [`Worker::stop`] returns: a front end that stops the
//! worker before answering `ping` can never emit stale output after its `pong`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Runs jobs on `S` in the background, one at a time.
pub struct Worker<S: Send + 'static> {
    state: Option<S>,
    running: Option<JoinHandle<S>>,
    stop: Arc<AtomicBool>,
}

impl<S: Send + 'static> Worker<S> {
    /// An idle worker owning `state`.
    pub fn new(state: S) -> Worker<S> {
        Worker {
            state: Some(state),
            running: None,
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Starts `job` on a new thread with the state and a stop flag the job must poll. Any job
    /// still running is stopped (and joined) first.
    pub fn start(&mut self, job: impl FnOnce(&mut S, &AtomicBool) + Send + 'static) {
        self.stop();
        let mut state = self.state.take().expect("an idle worker holds its state");
        self.stop.store(false, Ordering::SeqCst);
        let stop = Arc::clone(&self.stop);
        let handle = std::thread::Builder::new()
            .name("search".into())
            .spawn(move || {
                job(&mut state, &stop);
                state
            })
            .expect("spawning the search thread");
        self.running = Some(handle);
    }

    /// Asks a running job to stop and waits until it has returned. No-op when idle.
    pub fn stop(&mut self) {
        if self.running.is_some() {
            self.stop.store(true, Ordering::SeqCst);
            self.wait();
        }
    }

    /// Waits until a running job returns by itself. No-op when idle.
    pub fn wait(&mut self) {
        if let Some(handle) = self.running.take() {
            match handle.join() {
                Ok(state) => self.state = Some(state),
                // A job that panicked lost the state: the process is in an unknown state.
                Err(_) => panic!("the search thread panicked"),
            }
        }
    }

    #[cfg(test)]
    /// Whether a started job has returned by itself (so [`Worker::wait`] will not block).
    pub fn is_finished(&self) -> bool {
        self.running
            .as_ref()
            .is_none_or(|handle| handle.is_finished())
    }

    /// Runs `f` on the state in the calling thread, after stopping any running job.
    pub fn with_state<R>(&mut self, f: impl FnOnce(&mut S) -> R) -> R {
        self.stop();
        f(self.state.as_mut().expect("an idle worker holds its state"))
    }
}

impl<S: Send + 'static> Drop for Worker<S> {
    fn drop(&mut self) {
        if self.running.is_some() {
            self.stop.store(true, Ordering::SeqCst);
            if let Some(handle) = self.running.take() {
                let _ = handle.join();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    #[test]
    fn stop_interrupts_a_job_and_returns_the_state() {
        let mut worker = Worker::new(0u64);
        worker.start(|count, stop| {
            while !stop.load(Ordering::Relaxed) {
                *count += 1;
                std::thread::yield_now();
            }
        });
        std::thread::sleep(Duration::from_millis(5));
        let started = Instant::now();
        worker.stop();
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(worker.running.is_none());
        assert!(worker.with_state(|count| *count) > 0);
    }

    #[test]
    fn jobs_run_one_after_another_on_the_same_state() {
        let mut worker = Worker::new(Vec::new());
        let (sender, receiver) = mpsc::channel();
        for i in 0..3 {
            let sender = sender.clone();
            worker.start(move |log: &mut Vec<i32>, _| {
                log.push(i);
                sender.send(i).unwrap();
            });
            worker.wait();
        }
        assert_eq!(receiver.iter().take(3).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(worker.with_state(|log| log.clone()), [0, 1, 2]);
        assert!(worker.is_finished());
    }
}
