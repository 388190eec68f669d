"""The shipped studies: their study-specific tables and figures, and the runner that regenerates
and checks each study from its declaration (studies/<study>.json)."""
