"""``/submit``'s state: the guided wizard, as one parent state and four substates.

``WizardState`` (``wizard``) holds what every part reads: which draft, which step, whether the
page edits the draft or follows its submission, and the errors and notice it shows. Below
it, one concern each:

- ``WizardDraftState`` (``draft``): the draft's fields and how they save (autosave, the save
  status, refusals, starting the draft an upload attaches to), the steps and their
  addresses, and ``on_load``, the one place a step is entered.
- ``WizardFilesState`` (``files``): the draft's evidence files as rows, reread after each
  upload, removed on request, and whether a safety scan is still running.
- ``WizardProcessingState`` (``processing``): submit, then following the Test until it
  settles (also after the page lands on another replica), and copying its link.
- ``WizardBatchState`` (``batch``): step 2's "several setups" — setups as rows, a panel reply
  read into rows, the batch submitted from step 2 and what became of each setup. It reads the
  draft's prompt (``get_state``) and is read by no one.

``steps`` holds the step rules and addresses they share. A handler lives with the vars it
changes; one that needs another substate's vars asks for that substate with ``get_state``
(the draft for the file count and rows, and to hand a submitted Test to processing;
processing to write the verdicts into the rows). Modules import downhill only (batch uses
draft, draft uses processing and files, processing uses files), so none needs another's back.
Each page event names the substate that owns it.

Where the next additions land: a prompt prefilled into a new draft ("Try this prompt with your
setup") is how ``on_load`` starts a draft, in the draft substate.
"""
