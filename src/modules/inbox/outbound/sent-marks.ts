/** One send's part in a `SentMarks` batch: hands its mark over once, or leaves (failed, skipped). */
export interface SentMarkSlot<Mark, Result> {
  /** The send succeeded: waits for the statement holding this mark; its result. */
  mark(mark: Mark): Promise<Result>;
  /** No mark from this send (it failed or had nothing to send); a no-op once marked or left. */
  leave(): void;
}

/**
 * The SENT marks of one group delivery job, written together (issue 16 item 3): the job's sends run
 * side by side and each one the platform accepted hands its mark over; the marks waiting are written
 * in ONE statement as soon as every send of the job has handed its mark over or left, or `waitMs`
 * after the first one waits, whichever comes first — a slow platform call holds the others' marks
 * back by at most that long. Marks arriving after a write go in the next one.
 */
export class SentMarks<Mark, Result> {
  private waiting: { mark: Mark; resolve: (r: Result) => void; reject: (e: unknown) => void }[] = [];
  /** Slots that have neither been written nor left. */
  private open = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    /** Writes the marks in one statement; the results in their order. */
    private readonly write: (marks: readonly Mark[]) => Promise<Result[]>,
    private readonly waitMs: number,
  ) {}

  /** A slot for one send; take every slot before the first send ends. */
  slot(): SentMarkSlot<Mark, Result> {
    this.open++;
    let done = false;
    return {
      mark: (mark) => {
        if (done) return Promise.reject(new Error('This send already handed its mark over or left'));
        done = true;
        return new Promise<Result>((resolve, reject) => {
          this.waiting.push({ mark, resolve, reject });
          if (this.waiting.length >= this.open) this.flush();
          else this.timer ??= setTimeout(() => this.flush(), this.waitMs);
        });
      },
      leave: () => {
        if (done) return;
        done = true;
        this.open--;
        if (this.waiting.length > 0 && this.waiting.length >= this.open) this.flush();
      },
    };
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.waiting;
    this.waiting = [];
    this.open -= batch.length;
    if (batch.length === 0) return;
    this.write(batch.map((b) => b.mark)).then(
      (results) => batch.forEach((b, i) => b.resolve(results[i]!)),
      (error: unknown) => batch.forEach((b) => b.reject(error)),
    );
  }
}
