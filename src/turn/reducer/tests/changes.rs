//! The changes carry all a view needs: a mirror built from them alone, as the
//! browser's `TurnView` is, equals the turn after every event.

use proptest::prelude::*;

use crate::turn::reducer::*;

/// What a view keeps of one block.
#[derive(Debug, PartialEq)]
struct MirrorBlock {
    thinking: bool,
    text: String,
    meta: Option<ThinkingMeta>,
    tool: Option<ToolStep>,
}

impl MirrorBlock {
    fn of(block: &Block) -> Self {
        match block {
            Block::Thinking(t) => Self {
                thinking: true,
                text: t.text.clone(),
                meta: Some(t.meta()),
                tool: None,
            },
            Block::Answer { text } => Self {
                thinking: false,
                text: text.clone(),
                meta: None,
                tool: None,
            },
            // As `TurnView` keeps it: the arguments in the text, the
            // step beside (its arguments as of its last update).
            Block::Tool(step) => Self {
                thinking: false,
                text: step.arguments.clone(),
                meta: None,
                tool: Some(ToolStep {
                    arguments: String::new(),
                    ..step.clone()
                }),
            },
        }
    }
}

/// A view that never reads the turn after creating itself.
#[derive(Debug, PartialEq)]
struct Mirror {
    blocks: Vec<MirrorBlock>,
    progress: TurnProgress,
}

impl Mirror {
    fn new(turn: &Turn) -> Self {
        Self {
            blocks: turn.blocks.iter().map(MirrorBlock::of).collect(),
            progress: turn.progress(),
        }
    }

    fn sync(&mut self, changes: Vec<Change>) {
        for change in changes {
            match change {
                Change::Opened(block) => self.blocks.push(MirrorBlock::of(&block)),
                Change::Appended { index, text } => {
                    let block = &mut self.blocks[index];
                    block.text.push_str(&text);
                    // Arguments appended: they stream (as `TurnView` marks it).
                    if let Some(step) = block.tool.as_mut() {
                        step.streamed = true;
                    }
                }
                Change::Updated { index, meta } => self.blocks[index].meta = Some(meta),
                Change::Restructured(blocks) => {
                    self.blocks = blocks.iter().map(MirrorBlock::of).collect();
                }
                Change::ToolUpdated { index, step } => {
                    self.blocks[index].text = step.arguments.clone();
                    self.blocks[index].tool = Some(ToolStep {
                        arguments: String::new(),
                        ..step
                    });
                }
                Change::Status(progress) => self.progress = progress,
            }
        }
    }
}

fn event() -> impl Strategy<Value = TurnEvent> {
    let text = "[a-z <>/*\n]{0,12}|<topic>[a-z ]{1,8}</topic>\n|\\*\\*[A-Z][a-z]{1,6}\\*\\*\n";
    prop_oneof![
        Just(TurnEvent::ThinkingStart),
        text.prop_map(|text| TurnEvent::ThinkingDelta { text }),
        (0u64..20_000, any::<bool>()).prop_map(|(duration_ms, opaque)| {
            TurnEvent::ThinkingEnd {
                duration_ms,
                opaque,
            }
        }),
        text.prop_map(|text| TurnEvent::AnswerDelta { text }),
        (0u64..5_000).prop_map(|duration_ms| TurnEvent::AnswerWasThinking { duration_ms }),
        (0u64..100).prop_map(|n| TurnEvent::Usage(Usage {
            reasoning_tokens: Some(n),
            ..Usage::default()
        })),
        Just(TurnEvent::Done {
            finish_reason: None,
            output_limit: None,
        }),
        Just(TurnEvent::Error {
            kind: ErrorKind::Network,
            message: "lost".into()
        }),
        prop_oneof![Just("a"), Just("b")].prop_map(|id| TurnEvent::ToolCallStart {
            id: id.into(),
            name: "builtin__calculate".into(),
            server: "builtin".into(),
        }),
        (prop_oneof![Just("a"), Just("b")], "[a-z{}\":]{1,6}").prop_map(|(id, text)| {
            TurnEvent::ToolCallDelta {
                id: id.into(),
                text,
            }
        }),
        (
            prop_oneof![Just("a"), Just("b")],
            prop_oneof![
                Just(crate::turn::Approval::Needed),
                Just(crate::turn::Approval::NotNeeded),
                Just(crate::turn::Approval::Held),
            ]
        )
            .prop_map(|(id, approval)| TurnEvent::ToolCallReady {
                id: id.into(),
                arguments: serde_json::json!({"expression": "1+1"}),
                approval,
                digest: String::new(),
            }),
        prop_oneof![Just("a"), Just("b")].prop_map(|id| TurnEvent::ToolResult {
            id: id.into(),
            status: crate::turn::ToolStatus::Ok,
            output: "2".into(),
            truncated_bytes: 0,
            duration_ms: 5,
        }),
    ]
}

proptest! {
    #[test]
    fn a_view_built_from_the_changes_alone_equals_the_turn(
        events in proptest::collection::vec(event(), 0..24),
        stop_at_end in any::<bool>(),
    ) {
        let mut turn = Turn::new(0.0);
        let mut mirror = Mirror::new(&turn);
        for (i, event) in events.into_iter().enumerate() {
            let changes = turn.apply(event.clone(), 100.0 * i as f64);
            mirror.sync(changes);
            prop_assert_eq!(&mirror, &Mirror::new(&turn), "after {:?}", event);
        }
        if stop_at_end {
            mirror.sync(turn.stop(1e6));
            prop_assert_eq!(&mirror, &Mirror::new(&turn));
        }
    }
}
