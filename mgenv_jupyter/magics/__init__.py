"""The magics (`%envset` and its kin, `%memfree`, `%memholders`, `%memtrace`, `%%envsweep`) and how the results they
return show in a notebook: a front end that routes to the layers below."""
