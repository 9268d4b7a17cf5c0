"""Running jobs in a process: the pools a job runs in, the dispatcher that feeds them, the
periodic table and the loop that runs it without a scheduler.

Everything here takes the process's contexts as arguments and keeps nothing at module level.
The Taskiq task functions in ``tasks/`` are a thin layer over it; the web process's lifespan
(``benchmax.lifespan``) uses it directly when it is also the worker (the embedded default).
"""
