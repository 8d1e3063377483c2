//! The rules of the renderer's worker client, with no browser in them: the
//! requests in flight, their deadlines, and when a worker is replaced or the
//! renderer given up on. `worker.rs` feeds it what happens (a request, a
//! reply, a timer that fired, a worker that failed) and carries out the
//! [`Effect`]s it returns, in order; this module never touches the worker,
//! a timer or the page itself, so its rules are tested natively.
//!
//! The worker answers requests one at a time and in order, so the requests
//! in flight are a queue and the oldest one is the one being worked on. Its
//! deadline starts when it becomes the oldest (and the worker has loaded):
//! time spent waiting behind another request is not held against it. A
//! worker replaced more than [`MAX_RESTARTS`] times, one that does not load,
//! or one that cannot start means there is no renderer from then on.

use std::collections::VecDeque;

use super::MAX_RESTARTS;

/// What became of a request, when it is not the worker's reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The worker was replaced because this request missed its deadline or
    /// crashed it.
    CutShort,
    /// The worker was replaced because of another request: ask again.
    Restarted,
    /// There is no renderer any more.
    GivenUp,
}

/// What the browser side must do, in the order given. `A` is how a request
/// is answered (a callback in the browser).
#[derive(Debug, PartialEq)]
pub enum Effect<A> {
    /// Start worker `generation` (its replies and timers carry the number).
    StartWorker { generation: u64 },
    /// Terminate the current worker, if there is one.
    Terminate,
    /// Start the oldest request's deadline timer: when it fires, call
    /// [`Queue::deadline_passed`] with these numbers.
    ArmDeadline {
        generation: u64,
        id: u64,
        after_ms: f64,
    },
    /// Clear the deadline timer.
    DisarmDeadline,
    /// A worker was replaced: this many times in the page's life so far.
    Restarted(u32),
    /// The worker has loaded the module: views may render.
    Loaded,
    /// No renderer from now on: views show plain text.
    GaveUp,
    /// Tell a request what became of it.
    Answer(A, Outcome),
}

/// A request the worker has not answered yet.
struct Pending<A> {
    id: u64,
    deadline_ms: f64,
    answer: A,
}

/// The renderer's state: which worker is current, whether it has loaded,
/// and the requests it has not answered, oldest first.
pub struct Queue<A> {
    /// Counts the workers started: replies and timers of an older one are
    /// ignored, and streams know their state lives in an older one.
    generation: u64,
    /// A worker is running (started, not yet terminated).
    running: bool,
    /// The current worker has loaded the module (deadlines run only then).
    loaded: bool,
    /// Given up on: views show plain text.
    failed: bool,
    restarts: u32,
    next_id: u64,
    pending: VecDeque<Pending<A>>,
    /// The request whose deadline timer runs.
    armed: Option<u64>,
}

impl<A> Default for Queue<A> {
    fn default() -> Self {
        Queue {
            generation: 0,
            running: false,
            loaded: false,
            failed: false,
            restarts: 0,
            next_id: 0,
            pending: VecDeque::new(),
            armed: None,
        }
    }
}

impl<A> Queue<A> {
    /// The first worker is to start (at hydration).
    pub fn start(&mut self) -> Vec<Effect<A>> {
        vec![self.next_worker()]
    }

    /// Worker `generation` started (the browser took its URL).
    pub fn started(&mut self, generation: u64) {
        if generation == self.generation && !self.failed {
            self.running = true;
        }
    }

    /// Whether `generation` is the current worker's (what an older one says
    /// is too late to matter).
    pub fn is_current(&self, generation: u64) -> bool {
        generation == self.generation
    }

    /// The worker generation requests go to, if there is a renderer.
    pub fn current_generation(&self) -> Option<u64> {
        (!self.failed && self.running).then_some(self.generation)
    }

    /// Every request made has been answered.
    pub fn idle(&self) -> bool {
        self.pending.is_empty()
    }

    /// A request with its own deadline. Returns the id to send it with, or
    /// none when there is no renderer (the effects then answer it at once).
    pub fn submit(&mut self, deadline_ms: f64, answer: A) -> (Option<u64>, Vec<Effect<A>>) {
        if self.current_generation().is_none() {
            return (None, vec![Effect::Answer(answer, Outcome::GivenUp)]);
        }
        let id = self.next_id;
        self.next_id += 1;
        self.pending.push_back(Pending {
            id,
            deadline_ms,
            answer,
        });
        let mut effects = Vec::new();
        self.arm(&mut effects);
        (Some(id), effects)
    }

    /// Worker `generation` has loaded the module: the oldest request's
    /// deadline starts now.
    pub fn loaded(&mut self, generation: u64) -> Vec<Effect<A>> {
        let mut effects = Vec::new();
        if generation != self.generation || self.failed {
            return effects;
        }
        self.loaded = true;
        self.arm(&mut effects);
        effects.push(Effect::Loaded);
        effects
    }

    /// Worker `generation` answered its oldest request, returned with the
    /// effects to carry out before answering it (the next request's
    /// deadline starts now). A reply of an older worker is ignored.
    pub fn reply(&mut self, generation: u64) -> (Option<A>, Vec<Effect<A>>) {
        let mut effects = Vec::new();
        if generation != self.generation {
            return (None, effects);
        }
        self.disarm(&mut effects);
        let answered = self.pending.pop_front().map(|p| p.answer);
        self.arm(&mut effects);
        (answered, effects)
    }

    /// The worker's module trapped on the request just answered: it cannot
    /// be used again, and every other request goes to a new worker.
    pub fn broke(&mut self) -> Vec<Effect<A>> {
        self.replace(None)
    }

    /// Worker `generation` failed: a loaded one is replaced (the oldest
    /// request is the one it was working on); one that never loaded means
    /// its script or module cannot load, and the renderer is given up on.
    pub fn worker_error(&mut self, generation: u64) -> Vec<Effect<A>> {
        if generation != self.generation {
            return Vec::new();
        }
        if self.loaded {
            let culprit = self.pending.front().map(|p| p.id);
            self.replace(culprit)
        } else {
            self.give_up()
        }
    }

    /// Worker `generation` said it could not load the module.
    pub fn load_failed(&mut self, generation: u64) -> Vec<Effect<A>> {
        if generation != self.generation {
            return Vec::new();
        }
        self.give_up()
    }

    /// The load deadline of worker `generation` passed: if it is still the
    /// current one and has not loaded, nothing will render.
    pub fn load_deadline_passed(&mut self, generation: u64) -> Vec<Effect<A>> {
        if generation == self.generation && !self.loaded && !self.failed {
            self.give_up()
        } else {
            Vec::new()
        }
    }

    /// The deadline of request `id` passed: if the worker is still on it,
    /// the worker is stuck and is replaced.
    pub fn deadline_passed(&mut self, generation: u64, id: u64) -> Vec<Effect<A>> {
        let stuck =
            generation == self.generation && self.pending.front().is_some_and(|p| p.id == id);
        if stuck {
            self.replace(Some(id))
        } else {
            Vec::new()
        }
    }

    /// The worker could not be started.
    pub fn start_failed(&mut self) -> Vec<Effect<A>> {
        self.give_up()
    }

    fn next_worker(&mut self) -> Effect<A> {
        self.generation += 1;
        self.loaded = false;
        self.running = false;
        Effect::StartWorker {
            generation: self.generation,
        }
    }

    fn arm(&mut self, effects: &mut Vec<Effect<A>>) {
        if self.armed.is_some() || !self.loaded {
            return;
        }
        let Some(front) = self.pending.front() else {
            return;
        };
        self.armed = Some(front.id);
        effects.push(Effect::ArmDeadline {
            generation: self.generation,
            id: front.id,
            after_ms: front.deadline_ms,
        });
    }

    fn disarm(&mut self, effects: &mut Vec<Effect<A>>) {
        if self.armed.take().is_some() {
            effects.push(Effect::DisarmDeadline);
        }
    }

    fn stop_worker(&mut self, effects: &mut Vec<Effect<A>>) {
        self.disarm(effects);
        if std::mem::take(&mut self.running) {
            effects.push(Effect::Terminate);
        }
    }

    /// Terminates the worker and starts another; `culprit` is told it was
    /// cut short, every other request that it should ask again (after the
    /// new worker is started, so asking again reaches it). Past the restart
    /// budget the renderer is given up on instead.
    fn replace(&mut self, culprit: Option<u64>) -> Vec<Effect<A>> {
        let mut effects = Vec::new();
        self.stop_worker(&mut effects);
        self.restarts += 1;
        effects.push(Effect::Restarted(self.restarts));
        if self.restarts > MAX_RESTARTS {
            effects.extend(self.give_up());
            return effects;
        }
        let pending = std::mem::take(&mut self.pending);
        effects.push(self.next_worker());
        effects.extend(pending.into_iter().map(|request| {
            let outcome = if Some(request.id) == culprit {
                Outcome::CutShort
            } else {
                Outcome::Restarted
            };
            Effect::Answer(request.answer, outcome)
        }));
        effects
    }

    /// No renderer from now on: every request is answered so.
    fn give_up(&mut self) -> Vec<Effect<A>> {
        let mut effects = Vec::new();
        self.stop_worker(&mut effects);
        self.failed = true;
        self.generation += 1;
        effects.push(Effect::GaveUp);
        effects.extend(
            std::mem::take(&mut self.pending)
                .into_iter()
                .map(|request| Effect::Answer(request.answer, Outcome::GivenUp)),
        );
        effects
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Effect::*;

    /// A queue whose first worker has started and loaded.
    fn loaded() -> Queue<&'static str> {
        let mut queue = Queue::default();
        assert_eq!(queue.start(), vec![StartWorker { generation: 1 }]);
        queue.started(1);
        assert_eq!(queue.loaded(1), vec![Loaded]);
        queue
    }

    /// The deadline timer of request `id` of worker `generation`.
    fn armed(generation: u64, id: u64, after_ms: f64) -> Effect<&'static str> {
        ArmDeadline {
            generation,
            id,
            after_ms,
        }
    }

    /// Worker 1 replaced by worker 2, which is started before `answers` so
    /// that asking again reaches it.
    fn replaced(answers: Vec<Effect<&'static str>>) -> Vec<Effect<&'static str>> {
        let mut effects = vec![
            DisarmDeadline,
            Terminate,
            Restarted(1),
            StartWorker { generation: 2 },
        ];
        effects.extend(answers);
        effects
    }

    fn submit(queue: &mut Queue<&'static str>, name: &'static str) -> Vec<Effect<&'static str>> {
        let (id, effects) = queue.submit(2_000.0, name);
        assert!(id.is_some(), "{name} was sent");
        effects
    }

    #[test]
    fn without_a_worker_a_request_is_answered_at_once_as_given_up() {
        let mut queue = Queue::default();
        assert_eq!(
            queue.submit(2_000.0, "a"),
            (None, vec![Answer("a", Outcome::GivenUp)])
        );
        // Started but not yet running (its URL not yet taken) is the same.
        queue.start();
        assert_eq!(queue.current_generation(), None);
        queue.started(1);
        assert_eq!(queue.current_generation(), Some(1));
    }

    #[test]
    fn the_deadline_starts_when_a_request_becomes_the_oldest() {
        let mut queue = loaded();
        let (id, effects) = queue.submit(2_000.0, "a");
        assert_eq!(id, Some(0));
        assert_eq!(effects, vec![armed(1, 0, 2_000.0)]);
        // Waiting behind "a" is not held against "b": no timer for it yet.
        let (id, effects) = queue.submit(30_000.0, "b");
        assert_eq!((id, effects), (Some(1), vec![]));
        let (answered, effects) = queue.reply(1);
        assert_eq!(answered, Some("a"));
        assert_eq!(effects, vec![DisarmDeadline, armed(1, 1, 30_000.0)]);
        assert!(!queue.idle());
        let (answered, effects) = queue.reply(1);
        assert_eq!((answered, effects), (Some("b"), vec![DisarmDeadline]));
        assert!(queue.idle());
    }

    #[test]
    fn deadlines_run_only_once_the_worker_has_loaded() {
        let mut queue = Queue::default();
        queue.start();
        queue.started(1);
        assert_eq!(submit(&mut queue, "a"), vec![]);
        assert_eq!(queue.loaded(1), vec![armed(1, 0, 2_000.0), Loaded]);
    }

    #[test]
    fn a_missed_deadline_cuts_its_request_short_and_the_others_ask_the_new_worker_again() {
        let mut queue = loaded();
        submit(&mut queue, "a");
        submit(&mut queue, "b");
        let effects = queue.deadline_passed(1, 0);
        assert_eq!(
            effects,
            replaced(vec![
                Answer("a", Outcome::CutShort),
                Answer("b", Outcome::Restarted),
            ])
        );
        assert!(queue.idle());
        queue.started(2);
        // The new worker's deadlines wait for it to load.
        assert_eq!(submit(&mut queue, "c"), vec![]);
        assert_eq!(queue.loaded(2), vec![armed(2, 2, 2_000.0), Loaded]);
    }

    #[test]
    fn a_deadline_that_passes_after_its_answer_or_its_worker_changes_nothing() {
        let mut queue = loaded();
        submit(&mut queue, "a");
        submit(&mut queue, "b");
        queue.reply(1);
        assert_eq!(queue.deadline_passed(1, 0), vec![]);
        assert_eq!(queue.deadline_passed(0, 1), vec![]);
        assert_eq!(queue.current_generation(), Some(1));
    }

    #[test]
    fn what_an_older_worker_says_is_ignored() {
        let mut queue = loaded();
        submit(&mut queue, "a");
        queue.deadline_passed(1, 0);
        queue.started(2);
        submit(&mut queue, "b");
        assert!(!queue.is_current(1));
        assert_eq!(queue.reply(1), (None, vec![]));
        assert_eq!(queue.worker_error(1), vec![]);
        assert_eq!(queue.load_failed(1), vec![]);
        assert_eq!(queue.loaded(1), vec![]);
        assert_eq!(queue.load_deadline_passed(1), vec![]);
        assert!(!queue.idle(), "b still waits for worker 2");
    }

    #[test]
    fn a_worker_that_fails_after_loading_is_replaced_and_its_oldest_request_cut_short() {
        let mut queue = loaded();
        submit(&mut queue, "a");
        submit(&mut queue, "b");
        let effects = queue.worker_error(1);
        assert_eq!(
            effects,
            replaced(vec![
                Answer("a", Outcome::CutShort),
                Answer("b", Outcome::Restarted),
            ])
        );
    }

    #[test]
    fn a_trap_replaces_the_worker_and_every_request_left_asks_again() {
        let mut queue = loaded();
        submit(&mut queue, "a");
        submit(&mut queue, "b");
        let (answered, _) = queue.reply(1);
        assert_eq!(answered, Some("a"));
        assert_eq!(
            queue.broke(),
            replaced(vec![Answer("b", Outcome::Restarted)])
        );
    }

    #[test]
    fn a_worker_that_fails_before_loading_means_there_is_no_renderer() {
        let mut queue = Queue::default();
        queue.start();
        queue.started(1);
        submit(&mut queue, "a");
        assert_eq!(
            queue.worker_error(1),
            vec![Terminate, GaveUp, Answer("a", Outcome::GivenUp)]
        );
        assert_eq!(queue.current_generation(), None);
        assert_eq!(
            queue.submit(2_000.0, "b"),
            (None, vec![Answer("b", Outcome::GivenUp)])
        );
    }

    #[test]
    fn a_module_that_does_not_load_means_there_is_no_renderer() {
        let mut queue = Queue::default();
        queue.start();
        queue.started(1);
        submit(&mut queue, "a");
        assert_eq!(
            queue.load_failed(1),
            vec![Terminate, GaveUp, Answer("a", Outcome::GivenUp)]
        );
        // Nothing a given-up worker says brings the renderer back.
        assert_eq!(queue.loaded(1), vec![]);
        assert_eq!(queue.current_generation(), None);
    }

    #[test]
    fn a_worker_that_cannot_start_means_there_is_no_renderer() {
        let mut queue: Queue<&str> = Queue::default();
        queue.start();
        assert_eq!(queue.start_failed(), vec![GaveUp]);
        queue.started(1);
        assert_eq!(queue.current_generation(), None);
    }

    #[test]
    fn the_load_deadline_gives_up_only_on_a_current_worker_that_has_not_loaded() {
        let mut queue = loaded();
        assert_eq!(queue.load_deadline_passed(1), vec![]);

        let mut queue = Queue::default();
        queue.start();
        queue.started(1);
        submit(&mut queue, "a");
        assert_eq!(
            queue.load_deadline_passed(1),
            vec![Terminate, GaveUp, Answer("a", Outcome::GivenUp)]
        );
        assert_eq!(queue.load_deadline_passed(1), vec![]);
    }

    #[test]
    fn past_the_restart_budget_the_renderer_is_given_up_on() {
        let mut queue = loaded();
        for restart in 1..=MAX_RESTARTS {
            let (id, _) = queue.submit(2_000.0, "slow");
            let generation = queue.current_generation().expect("a worker runs");
            let effects = queue.deadline_passed(generation, id.expect("sent"));
            assert!(effects.contains(&Restarted(restart)), "{effects:?}");
            assert!(effects.contains(&Answer("slow", Outcome::CutShort)));
            let next = generation + 1;
            assert!(effects.contains(&StartWorker { generation: next }));
            queue.started(next);
            queue.loaded(next);
        }
        let (id, _) = queue.submit(2_000.0, "slow");
        submit(&mut queue, "waiting");
        let generation = queue.current_generation().expect("a worker runs");
        assert_eq!(
            queue.deadline_passed(generation, id.expect("sent")),
            vec![
                DisarmDeadline,
                Terminate,
                Restarted(MAX_RESTARTS + 1),
                GaveUp,
                Answer("slow", Outcome::GivenUp),
                Answer("waiting", Outcome::GivenUp),
            ]
        );
        assert_eq!(queue.current_generation(), None);
    }
}
