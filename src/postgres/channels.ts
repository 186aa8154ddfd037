export const PROGRESS_CHANNEL = "spsa_progress";

export const WORK_CHANNEL = "spsa_work";
