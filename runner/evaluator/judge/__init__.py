"""The judge: the trusted side of an evaluation, read top to bottom (docs/evaluation.md).

It reads the task (configs, hidden configs, tolerances), imports the task's reference, makes every
input from its own RNG, computes every expected output, compares, sets flags and writes the verdict.
It never imports, loads or executes candidate or baseline code: each kernel is built and called by
a kernel runner (kernel_runner.py), a process of its own in a sandbox of its own (isolation.py),
that holds only its kernel's files and the inputs it is handed (protocol.py).

0. before any kernel exists: task files hashed, configs read, reference imported and warmed up,
   static checks over the candidate's sources (text only);
1. compile gate   the baseline's and the candidate's runners build their kernels (on a GPU the
                  candidate's runner first builds the baseline, and the judge times it there
                  against the baseline's own runner: the process offset, Judge.process_offset);
2. correctness    per config: several seeds of fresh inputs, then outlier inputs; the candidate runs
                  twice per seed on fresh copies, outputs poisoned differently each time; both
                  results must match the reference and each other; type, dtype, shape and layout
                  are checked from what arrives, values by the judge alone;
3. performance    baseline and candidate repetitions in alternating rounds, first of each round
                  drawn at random (timing.py), each
                  repetition on the same inputs perturbed per element; every batch of repetitions
                  is timed by the judge's own clock; the runner commits to a digest of every
                  repetition's outputs, then the judge picks the repetitions it checks;
4. flags          the time bound (the candidate's time per call that its samples do not explain,
                  against the baseline's), excessive speedup, the runner's findings (evidence only),
                  static checks, task files changed.

The judge's modules, in the order an evaluation uses them: evaluation.py (the whole evaluation),
policy.py (the numbers it decides by), runners.py (a kernel runner seen from the judge), values.py
(inputs, expected outputs, comparison), config_judge.py (one config: correctness.py, then
rounds.py), static_checks.py (the candidate's sources, as text), procwatch.py (its sandbox, from
/proc) and roofline.py (bytes and FLOPs against this GPU's measured ceiling).
"""
from runner.evaluator.judge.evaluation import evaluate  # noqa: F401  (the judge's one entry)
