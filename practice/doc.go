// Package practice is the lab's drill: a bank of interview questions and
// predict-the-outcome exercises in English and Russian, their grading, the
// three practice modes, and a progress store in SQLite. It renders nothing;
// the web pages at /practice are built on this API.
//
// # Content
//
// Questions are YAML files under questions/, embedded in the binary (see
// questions/README.md for the format). Load reads and validates them into
// a Bank; LoadFS does the same from a directory (dev mode). A Bank is
// read-only and safe to share between requests. Every item is a Question
// with a stable ID, a Topic (a lesson slug: duplicates, keys, unique,
// setnx, statemachine, inbox, failures, cost, api) and a Kind:
//
//   - KindChoice: Options with IDs "a", "b", ...; one or more are Correct,
//     and each has its own explanation (Why).
//   - KindOpen: a model Answer and 3 to 5 key Points the person ticks.
//   - KindPredict: a Handler and a script (a Preset or an inline Script).
//     Show Steps(), the script without the preset's narration (which would
//     give the answer away), and PredictHint(), which says to give the
//     settled balance in major units (200.00; ParseMoney reads it) and
//     pick one of Verdicts() (VerdictLabel explains each).
//
// All text is a Text{EN, RU}; Text.In(lang) picks one.
//
// # Grading
//
//	g, err := bank.GradeChoice(id, r.Form["option"])           // option=a&option=c
//	g, err := bank.GradeOpen(id, ticked)                        // point=0&point=2, as ints
//	g, err := bank.GradePredict(id, r.FormValue("balance"), r.FormValue("verdict"))
//
// A Grade has Score from 0 to 1 and what the result page shows: every
// option with Picked, Correct, Right() and Why; every key point with
// Ticked and the model Answer; or an Outcome with the prediction, the
// engine's balance, verdict and Reason, which halves were right, and
// LabURL (/lab?preset=P&handlers=H or /lab?script=ESCAPED&handlers=H) for
// "open in the lab". Choice is all or nothing (the exact set of correct
// options); open is ticked points / points; predict gives half for the
// balance and half for the verdict. Predictions are graded by running the
// engine (sim.Execute) on every call; no answer is stored.
//
// Errors are the caller's input and wrap sentinels to test with
// errors.Is: ErrUnknownQuestion (404), ErrWrongKind, ErrBadOption,
// ErrBadPoint, ErrMalformedBalance, ErrUnknownVerdict (400, show the
// message: it says what to type).
//
// # Modes
//
//   - By topic: Bank.ByTopic(slug), in file order. The lessons link to it
//     as /practice?topic=SLUG.
//   - Interview in 15 minutes: Bank.Interview(seed, 0), InterviewSize (10)
//     items across all topics and kinds, in course order, the same for the
//     same seed. Put the seed in the URL so a run can be shared or resumed.
//   - Review what I got wrong: Progress.Review(now), the answered items
//     due at now, misses first. Leitner boxes: a miss (score below
//     HitScore) goes to box 1 and is due again in 10 minutes; a hit moves
//     one box up (1 day, 3 days, 7 days, 30 days). Next and Interval are
//     the schedule.
//
// # Progress
//
// Open(path, bank) opens (and creates, and migrates) the SQLite file,
// after SQLite's quick_check: a corrupt file is a *DamagedError that says
// to move it aside. DefaultPath() is the default for the CLI's --data flag. The store keys
// everything by an anonymous profile id: NewProfileID mints one (128
// random bits), ValidProfileID checks a cookie before it is used. Then:
//
//	store.Record(ctx, profile, g.Question, g.Score, now) // after grading
//	p, err := store.Progress(ctx, profile)               // bars and review state
//	p.Topics[i].AnsweredPercent(), p.Topic(slug), p.Overall, p.Items[id], p.Review(now)
//	data, err := store.Export(ctx, profile)               // a JSON file to download
//	res, err := store.Import(ctx, profile, data)          // an uploaded file, at most MaxImportBytes
//
// The store keeps the attempts (question, score, time) and derives
// progress from them, so an import is a union of histories: attempts
// already stored are skipped (importing twice changes nothing), an
// attempt id stored with different content is ErrImportConflict, and a
// bad file is ErrBadImport naming the problem; either way nothing is
// written. Import into the cookie's profile to merge a file into this
// browser's progress, or set the cookie to ImportResult.From and import
// into it to restore a profile as it was.
//
// A profile keeps at most MaxAttempts attempts: Record drops the oldest
// superseded ones to stay there, and an import that would go past it is a
// *TooManyAttemptsError (ErrTooManyAttempts), again writing nothing. A
// write the database refuses at run time (a read-only file, a full or
// failing disk) is ErrNotSaved: the lab's fault, not the reader's.
//
// The package never reads the clock: every time (now, at) comes from the
// caller. There is no package-level mutable state; a Bank and a Store
// are safe for concurrent use, and several processes may share one file.
package practice
