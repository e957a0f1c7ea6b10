"""Untrusted text from sources is escaped before it reaches a page."""

from pipeline.render.markdown import chart, esc, table, url_link


def test_html_and_markdown_are_neutralised():
    text = esc('<script>alert("x")</script> | **bold** [link](javascript:alert(1))')
    assert "<script>" not in text and "&lt;script&gt;" in text
    assert "|" not in text  # would split a table cell
    assert "**" not in text and "\\[link\\]" in text  # no emphasis, no link syntax


def test_only_http_urls_become_links():
    assert url_link("x", "javascript:alert(1)") == "x"
    link = url_link('a"b', 'https://example.com/?q="><script>')
    assert link.startswith('<a href="https://example.com/?q=&quot;&gt;&lt;script&gt;"')
    assert "a&quot;b" in link


def test_chart_json_cannot_close_its_script_tag():
    html = chart("c", {"data": {"values": [{"name": "</script><script>alert(1)</script>", "v": float("nan")}]}})
    body = html.split(">", 2)[2]
    assert "</script><script>" not in body.split("</script>\n")[0]
    assert '"v":null' in html


def test_table_cells_stay_in_their_columns():
    md = table(["a", "b"], [[esc("x|y"), esc("z")]])
    assert md.splitlines()[2].count("|") == 3


def test_long_source_titles_are_shortened_with_the_whole_title_as_tooltip():
    title = "NVIDIA Ada GPU Architecture whitepaper v2.1, Appendix A <GeForce RTX 4090> rows quoted in a script"
    link = url_link(title, "https://example.com/a.pdf", limit=40)
    assert ">NVIDIA Ada GPU Architecture whitepaper…</a>" in link
    assert 'title="NVIDIA Ada GPU Architecture whitepaper v2.1, Appendix A &lt;GeForce RTX 4090&gt;' in link
    assert url_link("short", "https://example.com/", limit=40) == (
        '<a href="https://example.com/" rel="nofollow noopener">short</a>'
    )
    assert url_link(title, None, limit=20).startswith("<span title=")


def test_script_json_cannot_close_its_element():
    import json

    from pipeline.render.markdown import script_json

    value = {"name": "</script><svg onload=alert(1)><!-- & </SCRIPT"}
    text = script_json(value)
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == value


def test_page_title_is_escaped_text_whatever_its_origin():
    from types import SimpleNamespace

    from pipeline.render.site import page_title

    heading = SimpleNamespace(meta={}, title="&lt;/title&gt;&lt;svg onload=alert(1)&gt; <code>H100</code>")
    assert page_title(heading) == "&lt;/title&gt;&lt;svg onload=alert(1)&gt; H100"
    front_matter = SimpleNamespace(meta={"title": "A <b> & B"}, title="A <b> & B")
    assert page_title(front_matter) == "A &lt;b&gt; &amp; B"


def test_a_pipe_in_a_shortened_title_stays_inside_its_table_cell():
    from pipeline.render.markdown import url_link

    cell = url_link("a title | with a pipe " + "x" * 80, "https://example.org/a|b", 20)
    assert "|" not in cell
