//! The plan as text for a person: numbered steps, each with its change, why, what to wait for
//! and how to undo it. (`-o json` is the [`super::Plan`] serialized.)

use std::fmt::Write as _;

use super::{Change, Plan};

/// The plan as text.
pub fn render_text(plan: &Plan) -> String {
    let mut text = String::new();
    let count = plan.steps.len();
    if count == 0 {
        text.push_str("Nothing to do: LIVE already matches DESIRED.\n");
    } else {
        let _ = writeln!(
            text,
            "{count} step(s) from LIVE to DESIRED; run `calico-render plan` again after any \
             step for the steps left."
        );
    }
    if !plan.transitions.is_empty() {
        text.push_str("\nTransitions:\n");
        for transition in &plan.transitions {
            let _ = writeln!(text, "  - {transition}");
        }
    }
    if !plan.preconditions.is_empty() {
        text.push_str("\nBefore the first step, check (the plan cannot see these):\n");
        for check in &plan.preconditions {
            let _ = writeln!(text, "  - {}", check.description);
            let _ = writeln!(text, "    $ {}", check.command);
        }
    }
    for (number, step) in plan.steps.iter().enumerate() {
        let _ = writeln!(
            text,
            "\nStep {}/{count} [{}]: {}",
            number + 1,
            step.id,
            step.title
        );
        let _ = writeln!(text, "  why: {}", step.why);
        match &step.change {
            Change::Patch { command, .. }
            | Change::Create { command, .. }
            | Change::Delete { command, .. } => {
                let _ = writeln!(text, "  run: {command}");
            }
            Change::UserAction { commands } => {
                for command in commands {
                    let _ = writeln!(text, "  do: {command}");
                }
            }
            Change::Wait => text.push_str("  run: nothing; wait\n"),
        }
        for check in &step.wait {
            let who = if check.user_checked {
                "check (read the output)"
            } else {
                "wait"
            };
            let _ = writeln!(text, "  {who}: {}", check.description);
            let _ = writeln!(text, "    $ {}", check.command);
        }
        let _ = writeln!(text, "  undo: {}", step.undo.description);
        match &step.undo.change {
            Some(
                Change::Patch { command, .. }
                | Change::Create { command, .. }
                | Change::Delete { command, .. },
            ) => {
                let _ = writeln!(text, "    $ {command}");
            }
            Some(Change::UserAction { .. } | Change::Wait) | None => {}
        }
    }
    if !plan.notes.is_empty() {
        text.push_str("\nNotes:\n");
        for note in &plan.notes {
            let _ = writeln!(text, "  - {note}");
        }
    }
    text
}
