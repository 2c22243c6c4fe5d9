/** Lines as Codex 0.169.0 writes them (compact JSON, one entry a line). */
export function goalLine(status: string): string {
  return JSON.stringify({
    timestamp: "2026-11-26T12:55:34.970Z",
    ordinal: 1,
    type: "event_msg",
    payload: {
      type: "thread_goal_updated",
      threadId: "t-1",
      goal: { threadId: "t-1", objective: "Finish.", status, tokensUsed: 0, timeUsedSeconds: 0 },
    },
  });
}

export function taskStarted(turnId: string, trigger: string | null): string {
  return JSON.stringify({
    type: "event_msg",
    payload: {
      type: "task_started",
      turn_attribution: { turn_id: turnId, turn_trigger: trigger, root_turn_id: turnId },
      turn_id: turnId,
    },
  });
}
