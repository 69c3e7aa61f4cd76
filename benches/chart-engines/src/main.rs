//! The trend chart of one series page drawn with plotters' SVG backend, from the page's own
//! data (the JSON of `site::trend::data`): the same marks as site::trend::svg (levels, noise
//! bands, change points, breaks, unstable stretches, the line, a dot per run, axes with run
//! numbers), to compare bytes and time. Usage: chart-engines DATA.json OUT.svg
use plotters::prelude::*;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&args[1]).unwrap()).unwrap();
    let pts: Vec<(f64, f64)> = v["points"].as_array().unwrap().iter().enumerate()
        .filter_map(|(i, p)| p[1].as_f64().map(|y| (i as f64, y))).collect();
    let runs: Vec<u64> = v["points"].as_array().unwrap().iter().map(|p| p[0].as_u64().unwrap()).collect();
    let levels: Vec<(f64, f64, f64, f64)> = v["levels"].as_array().unwrap().iter()
        .map(|l| (l[0].as_f64().unwrap(), l[1].as_f64().unwrap(), l[2].as_f64().unwrap(), l[3].as_f64().unwrap())).collect();
    let changes: Vec<(f64, bool)> = v["changes"].as_array().unwrap().iter().map(|c| (c[0].as_f64().unwrap(), c[1].as_u64() == Some(1))).collect();
    let breaks: Vec<f64> = v["breaks"].as_array().unwrap().iter().map(|b| b.as_f64().unwrap()).collect();
    let unstable: Vec<(f64, f64)> = v["unstable"].as_array().unwrap().iter().map(|u| (u[0].as_f64().unwrap(), u[1].as_f64().unwrap())).collect();
    let n = pts.len() as f64;
    let reps = 50;
    let mut out = String::new();
    let t = Instant::now();
    for _ in 0..reps {
        out.clear();
        {
            let root = SVGBackend::with_string(&mut out, (720, 340)).into_drawing_area();
            root.fill(&WHITE).unwrap();
            let (lo, hi) = pts.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
            let pad = (hi - lo) * 0.08;
            let mut c = ChartBuilder::on(&root)
                .margin(16).x_label_area_size(44).y_label_area_size(60)
                .build_cartesian_2d(0f64..(n - 1.0), (lo - pad)..(hi + pad)).unwrap();
            c.configure_mesh().x_labels(5).y_labels(5)
                .x_label_formatter(&|x| format!("#{}", runs[(*x as usize).min(runs.len() - 1)]))
                .x_desc("run").draw().unwrap();
            let blue = RGBColor(0, 0x72, 0xb2);
            for &(a, b) in &unstable {
                c.draw_series(std::iter::once(Rectangle::new([(a - 0.5, lo - pad), (b - 0.5, hi + pad)], RGBColor(0x7f, 0x7f, 0x7f).mix(0.08).filled()))).unwrap();
            }
            for &(a, b, level, band) in &levels {
                if band > 0.0 {
                    c.draw_series(std::iter::once(Rectangle::new([(a, level * (1.0 + band)), (b - 1.0, level * (1.0 - band))], RGBColor(0xe6, 0x9f, 0).mix(0.1).filled()))).unwrap();
                }
                c.draw_series(LineSeries::new([(a, level), (b - 1.0, level)], BLACK.mix(0.6))).unwrap();
            }
            for &(i, reg) in &changes {
                let col = if reg { RGBColor(0xd5, 0x5e, 0) } else { RGBColor(0, 0x9e, 0x73) };
                c.draw_series(LineSeries::new([(i, lo - pad), (i, hi + pad)], col.stroke_width(2))).unwrap();
            }
            for &i in &breaks {
                c.draw_series(LineSeries::new([(i - 0.5, lo - pad), (i - 0.5, hi + pad)], RGBColor(0x96, 0x96, 0x96))).unwrap();
            }
            c.draw_series(LineSeries::new(pts.iter().copied(), blue.stroke_width(2))).unwrap();
            if pts.len() <= 120 {
                c.draw_series(pts.iter().map(|p| Circle::new(*p, 2, blue.filled()))).unwrap();
            }
            root.present().unwrap();
        }
    }
    let per = t.elapsed().as_secs_f64() / reps as f64;
    std::fs::write(&args[2], &out).unwrap();
    println!("plotters 0.3.7: {} points, {} bytes, {:.3} ms per chart", pts.len(), out.len(), per * 1e3);
}
