"""Parts of the main screen that own their state and workers: the catalog pane, the source pane's
details and body pager, the meters, the notices under the header and the agent view."""
