import { createHash } from 'node:crypto';

/** Stylesheet of the HTML report (static; no data is ever interpolated here). */
export const REPORT_CSS = `
:root{--fg:#1f2328;--muted:#59636e;--border:#d0d7de;--bg:#fff;--soft:#f6f8fa;--pass:#1a7f37;--fail:#cf222e;--err:#9a6700;--skip:#8c959f;--accent:#0969da}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 -apple-system,BlinkMacSystemFont,"Segoe UI",Helvetica,Arial,sans-serif;color:var(--fg);background:var(--bg)}
header,main{max-width:1400px;margin:0 auto;padding:16px 24px}
header{border-bottom:1px solid var(--border)}
h1{font-size:22px;margin:0 0 6px}
h2{font-size:17px;margin:24px 0 8px}
.facts{display:flex;flex-wrap:wrap;gap:4px 18px;color:var(--muted);font-size:13px;margin:0;padding:0;list-style:none}
.facts b{color:var(--fg);font-weight:600}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:10px;margin:14px 0}
.card{border:1px solid var(--border);border-radius:6px;padding:10px 12px;background:var(--soft)}
.card .v{font-size:20px;font-weight:600}
.card .l{color:var(--muted);font-size:12px}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:16px;align-items:start}
.chart{width:100%;max-width:520px;height:auto}
table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid var(--border);padding:5px 8px;text-align:left;vertical-align:top}
th{background:var(--soft);position:sticky;top:0;z-index:1;font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.metrics td{white-space:nowrap}.metrics td.desc{white-space:normal;color:var(--muted)}
.badge{display:inline-block;padding:0 7px;border-radius:10px;font-size:12px;font-weight:600;color:#fff;white-space:nowrap}
.s-passed{background:var(--pass)}.s-failed{background:var(--fail)}.s-error{background:var(--err)}.s-skipped{background:var(--skip)}
.ok{color:var(--pass)}.bad{color:var(--fail)}
.filters{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:8px 0;position:sticky;top:0;background:var(--bg);padding:6px 0;z-index:2}
.filters input,.filters select{font:inherit;padding:4px 8px;border:1px solid var(--border);border-radius:6px}
.filters input{min-width:260px}
#f-count{color:var(--muted)}
.grid{border:1px solid var(--border);border-radius:6px;overflow:hidden}
.row{display:grid;grid-template-columns:76px minmax(160px,2fr) 64px 72px 84px minmax(90px,1fr) minmax(160px,3fr) minmax(160px,3fr);height:34px;align-items:center;border-bottom:1px solid var(--border)}
.row>div{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;padding:0 8px}
.row>div.num{text-align:right;font-variant-numeric:tabular-nums}
.row.head{background:var(--soft);font-weight:600;cursor:default}
.row.head button.sort{font:inherit;font-weight:600;background:none;border:0;padding:0;cursor:pointer;color:inherit}
.row.head [data-dir=asc]::after{content:" ▲"}.row.head [data-dir=desc]::after{content:" ▼"}
#grid-viewport{height:70vh;min-height:240px;overflow:auto;position:relative;outline:none}
#grid-spacer{position:relative;width:100%}
#grid-rows{position:absolute;top:0;left:0;right:0}
#grid-rows .row{cursor:pointer;position:absolute;left:0;right:0}
#grid-rows .row:hover,#grid-rows .row:focus{background:#ddf4ff;outline:none}
#grid-rows .muted{color:var(--muted)}
#grid-rows .id{color:var(--muted);margin-left:6px;font-size:12px}
.empty{padding:16px;color:var(--muted)}
.fallback small{color:var(--muted);display:block}
.tag{display:inline-block;border:1px solid var(--border);border-radius:10px;padding:0 6px;margin:0 2px 2px 0;font-size:12px}
.note{color:var(--muted);font-size:13px}
#drill{position:fixed;top:0;right:0;bottom:0;width:min(760px,100%);background:var(--bg);border-left:1px solid var(--border);box-shadow:-8px 0 24px rgba(0,0,0,.12);overflow:auto;padding:16px 20px;z-index:10}
#drill h3{margin:0 30px 4px 0;font-size:18px}
#drill h4{margin:16px 0 6px;font-size:14px}
#drill pre{background:var(--soft);border:1px solid var(--border);border-radius:6px;padding:8px;white-space:pre-wrap;word-break:break-word;max-height:360px;overflow:auto;margin:0;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
#drill .close{position:absolute;top:12px;right:14px;font-size:20px;border:0;background:none;cursor:pointer}
#drill table td{font-size:13px}
.timeline li{margin:0 0 10px}
.timeline .bar{display:inline-block;height:8px;background:var(--accent);border-radius:2px;vertical-align:middle;margin-left:6px}
.timeline .tool-error{color:var(--fail);font-weight:600}
@media print{.filters,#drill{display:none}}
`;

/**
 * Behaviour of the HTML report: the case grid (only the rows in view exist in the DOM, so 10,000 or 100,000
 * cases open as fast as 100), filters, sorting and the per-case drill-down. Case data comes from the JSON
 * data block and is only ever placed with textContent, never parsed as HTML.
 */
export const REPORT_SCRIPT = `(function(){'use strict';
var dataEl=document.getElementById('aeh-cases');if(!dataEl)return;
var cases=JSON.parse(dataEl.textContent||'[]');
var ROW=34,OVERSCAN=20;
var viewport=document.getElementById('grid-viewport'),spacer=document.getElementById('grid-spacer'),rowsEl=document.getElementById('grid-rows');
var q=document.getElementById('f-text'),st=document.getElementById('f-status'),tg=document.getElementById('f-tag'),ev=document.getElementById('f-eval'),count=document.getElementById('f-count');
var LABEL={passed:'pass',failed:'fail',error:'error',skipped:'skipped'};
var order=cases.map(function(_,i){return i;}),shown=order,texts=null,sortKey=null,sortDir=1;
function el(tag,text,cls){var e=document.createElement(tag);if(text!==undefined&&text!==null)e.textContent=String(text);if(cls)e.className=cls;return e;}
function cell(text,cls){var d=el('div',text,cls);d.setAttribute('role','gridcell');if(text)d.title=String(text);return d;}
function row(i){var c=cases[i];var r=el('div',null,'row');r.id='case-'+i;r.setAttribute('data-i',String(i));r.setAttribute('role','row');r.tabIndex=0;
 var s=el('div');s.setAttribute('role','gridcell');s.appendChild(el('span',LABEL[c.status]||c.status,'badge s-'+c.status));r.appendChild(s);
 var n=cell(c.name);if(c.name!==c.id)n.appendChild(el('span',c.id,'id'));r.appendChild(n);
 r.appendChild(cell(c.repeat,'num'));r.appendChild(cell(c.score.toFixed(3),'num'));r.appendChild(cell(c.call_time,'num'));
 var t=cell('');c.tags.forEach(function(x){t.appendChild(el('span',x,'tag'));});t.title=c.tags.join(', ');r.appendChild(t);
 r.appendChild(cell(c.reason,'muted'));r.appendChild(cell(c.preview,'muted'));return r;}
var pending=false,rendered=new Map(),empty=null;
// Rows are absolutely placed; rows that stay in view are never touched, so a click or focus is not lost to a redraw.
function draw(reset){pending=false;var top=viewport.scrollTop,h=viewport.clientHeight||600;
 var first=Math.max(0,Math.floor(top/ROW)-OVERSCAN),last=Math.min(shown.length,Math.ceil((top+h)/ROW)+OVERSCAN);
 spacer.style.height=Math.max(shown.length*ROW,ROW)+'px';
 if(reset){rendered.forEach(function(r){r.remove();});rendered=new Map();}
 rendered.forEach(function(r,k){if(k<first||k>=last){r.remove();rendered.delete(k);}});
 var f=document.createDocumentFragment();
 for(var k=first;k<last;k++){if(!rendered.has(k)){var r=row(shown[k]);r.style.top=k*ROW+'px';r.setAttribute('data-k',String(k));rendered.set(k,r);f.appendChild(r);}}
 rowsEl.appendChild(f);
 if(shown.length===0&&!empty){empty=el('div','No case matches the filters.','empty');rowsEl.appendChild(empty);}
 else if(shown.length>0&&empty){empty.remove();empty=null;}}
function schedule(){if(!pending){pending=true;requestAnimationFrame(function(){draw(false);});}}
viewport.addEventListener('scroll',schedule);window.addEventListener('resize',schedule);
var lastFilter=null;
function apply(force){
 var state=JSON.stringify([q.value,st.value,tg.value,ev.value]);
 // A text box fires "change" again when it loses focus (e.g. on a click into the grid): nothing to redo then.
 if(!force&&state===lastFilter)return;lastFilter=state;
 if(!texts&&q.value)texts=cases.map(function(c){return (c.name+' '+c.id+' '+c.reason+' '+c.preview+' '+c.tags.join(' ')+' '+c.input+' '+c.output).toLowerCase();});
 var text=q.value.trim().toLowerCase(),s=st.value,t=tg.value,e=ev.value;
 shown=order.filter(function(i){var c=cases[i];return (!s||c.status===s)&&(!t||c.tags.indexOf(t)>=0)&&(!e||c.failed.indexOf(e)>=0)&&(!text||texts[i].indexOf(text)>=0);});
 count.textContent=shown.length+' of '+cases.length+' shown';viewport.scrollTop=0;draw(true);
}
q.addEventListener('input',function(){apply(false);});[st,tg,ev].forEach(function(x){x.addEventListener('change',function(){apply(false);});x.addEventListener('input',function(){apply(false);});});
var heads=document.querySelectorAll('.row.head [data-sort]');
Array.prototype.forEach.call(heads,function(hd){hd.addEventListener('click',function(){
 var key=hd.getAttribute('data-sort');
 sortDir=sortKey===key?-sortDir:1;sortKey=key;
 Array.prototype.forEach.call(heads,function(o){o.removeAttribute('data-dir');});hd.setAttribute('data-dir',sortDir>0?'asc':'desc');
 order=cases.map(function(_,i){return i;});
 order.sort(function(a,b){var x=cases[a][key],y=cases[b][key];return (x<y?-1:x>y?1:a-b)*sortDir;});apply(true);});});
var drill=document.getElementById('drill'),content=document.getElementById('drill-content');
function section(title,text){if(text===undefined||text===null||text==='')return null;var f=document.createDocumentFragment();f.appendChild(el('h4',title));f.appendChild(el('pre',text));return f;}
function add(node){if(node)content.appendChild(node);}
function open(i,push){
 var c=cases[i];if(!c)return;
 content.textContent='';
 content.appendChild(el('h3',c.name));
 content.appendChild(el('div',c.id+' · repeat '+c.repeat+' · '+c.status+' · score '+c.score.toFixed(3)+' · call time '+c.call_time+(c.reported_latency?' · reported latency '+c.reported_latency:'')+(c.attempts>1?' · '+c.attempts+' attempts':'')+(c.cost!==null?' · $'+c.cost:'')+(c.tokens?' · '+c.tokens:''),'note'));
 add(section('Input',c.input));add(section('Expected',c.expected));add(section('Output',c.output));add(section('Agent error',c.error));
 if(c.evaluations.length){content.appendChild(el('h4','Evaluations ('+c.evaluations.length+')'));
  var t=el('table');var hr=el('tr');['Evaluator','Score','Result','Explanation'].forEach(function(h){hr.appendChild(el('th',h));});t.appendChild(hr);
  c.evaluations.forEach(function(e){var tr=el('tr');tr.appendChild(el('td',e.evaluator));tr.appendChild(el('td',e.score.toFixed(3),'num'));
   tr.appendChild(el('td',e.error?'evaluator error':(e.passed?'pass':'fail'),e.passed?'ok':'bad'));
   var td=el('td',e.explanation);if(e.details){var d=el('details');d.appendChild(el('summary','details'));d.appendChild(el('pre',e.details));td.appendChild(d);}
   tr.appendChild(td);t.appendChild(tr);});
  content.appendChild(t);}
 if(c.tool_calls.length){content.appendChild(el('h4','Tool-call trajectory ('+c.tool_calls.length+')'));
  var max=0;c.tool_calls.forEach(function(tc){if(tc.duration>max)max=tc.duration;});
  var ol=el('ol',null,'timeline');
  c.tool_calls.forEach(function(tc){var li=el('li');var head=el('div');head.appendChild(el('b',tc.tool_name));
   head.appendChild(el('span',' '+(tc.status==='error'?'error':'ok'),tc.status==='error'?'tool-error':'ok'));
   if(tc.duration!==null){head.appendChild(el('span',' '+tc.duration.toFixed(3)+' s'));if(max>0){var b=el('span',null,'bar');b.style.width=Math.max(2,Math.round(200*tc.duration/max))+'px';head.appendChild(b);}}
   li.appendChild(head);[['arguments',tc.args],['result',tc.result],['error',tc.error]].forEach(function(p){if(p[1]){li.appendChild(el('div',p[0],'note'));li.appendChild(el('pre',p[1]));}});ol.appendChild(li);});
  content.appendChild(ol);}
 if(c.messages.length){content.appendChild(el('h4','Messages ('+c.messages.length+')'));c.messages.forEach(function(m){content.appendChild(el('div',m.role,'note'));content.appendChild(el('pre',m.content));});}
 if(c.spans.length){content.appendChild(el('h4','Spans ('+c.spans.length+')'));var ul=el('ul');c.spans.forEach(function(s){ul.appendChild(el('li',s.name+' · '+s.ms+' ms'+(s.status==='error'?' · error':'')));});content.appendChild(ul);}
 add(section('Tags',c.tags.join(', ')));add(section('Metadata',c.metadata));
 drill.hidden=false;drill.focus();
 if(push!==false&&history.replaceState)history.replaceState(null,'','#case-'+i);
}
function close(){drill.hidden=true;if(history.replaceState)history.replaceState(null,'',location.pathname+location.search);}
document.getElementById('drill-close').addEventListener('click',close);
document.addEventListener('keydown',function(e){if(e.key==='Escape'&&!drill.hidden)close();});
rowsEl.addEventListener('click',function(e){var r=e.target.closest('.row');if(r&&r.hasAttribute('data-i'))open(+r.getAttribute('data-i'));});
rowsEl.addEventListener('keydown',function(e){var r=e.target.closest('.row');if(!r)return;
 if(e.key==='Enter'&&r.hasAttribute('data-i'))open(+r.getAttribute('data-i'));
 else if(e.key==='ArrowDown'||e.key==='ArrowUp'){e.preventDefault();var n=rendered.get(+r.getAttribute('data-k')+(e.key==='ArrowDown'?1:-1));if(n)n.focus();}});
count.textContent=cases.length+' of '+cases.length+' shown';
draw(true);
var m=/^#case-(\\d+)$/.exec(location.hash);if(m)open(+m[1],false);
document.documentElement.setAttribute('data-ready','1');
})();`;

/** CSP source for the inline script: only this exact script may run. */
export const REPORT_SCRIPT_HASH = `sha256-${createHash('sha256').update(REPORT_SCRIPT).digest('base64')}`;
